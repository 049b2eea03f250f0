import assert from 'node:assert/strict';
import { namesMatch, normalisedName } from '../../src/payer-returns/payer-name';

describe("a payer's name against a name enquiry's", () => {
  it('folds case, drops accents and apostrophes, breaks words at any other punctuation, and sorts the words', () => {
    assert.equal(normalisedName('  OKAFOR   Ada  '), 'ada okafor');
    assert.equal(normalisedName('Adébáyọ̀ FOLÁKẸ́'), 'adebayo folake');
    assert.equal(normalisedName("Ngozi O'Neil"), 'ngozi oneil');
    assert.equal(normalisedName('Ngozi O’Neil'), 'ngozi oneil');
    assert.equal(normalisedName('Obi-Nwosu, Ada.'), 'ada nwosu obi');
    assert.equal(normalisedName('ADA/OBI\tNWOSU\n'), 'ada nwosu obi');
    assert.equal(normalisedName('ＡＤＡ ＯＢＩ'), 'ada obi');
    assert.equal(normalisedName('Ada Obi 2'), '2 ada obi');
    assert.equal(normalisedName(' .-/ '), '');
  });

  it('matches one person’s name however the two sides write it', () => {
    assert.ok(namesMatch('OKONKWO ADAEZE CHINEDU', 'Adaeze Chinedu Okonkwo'));
    assert.ok(namesMatch('Adébáyọ̀ Folake', 'ADEBAYO FOLAKE'));
    assert.ok(namesMatch('Obi-Nwosu Ada', 'ADA OBI NWOSU'));
    assert.ok(namesMatch("O'NEIL NGOZI", 'Ngozi ONeil'));
  });

  it('does not match another name: a word missing, added, changed or split differently', () => {
    assert.ok(!namesMatch('ADA OBI', 'ADA CHIOMA OBI'));
    assert.ok(!namesMatch('ADA CHIOMA OBI', 'ADA OBI'));
    assert.ok(!namesMatch('ADA OBI', 'ADA OBU'));
    assert.ok(!namesMatch('ADA OBI', 'ADAOBI'));
    assert.ok(!namesMatch('ADA ADA OBI', 'ADA OBI'));
  });

  it('matches nothing with an empty name, not even another empty one', () => {
    assert.ok(!namesMatch('', ''));
    assert.ok(!namesMatch(' - ', '.'));
    assert.ok(!namesMatch('', 'ADA OBI'));
    assert.ok(!namesMatch('ADA OBI', ''));
  });
});
