import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

const repoRoot = path.resolve(__dirname, '../../..');

/** The documentation set: the README, the topic pages and the benchmarks' README. */
function documentationFiles(): string[] {
  const docs = readdirSync(path.join(repoRoot, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .map((name) => path.join('docs', name));
  return ['README.md', ...docs, path.join('bench', 'README.md')];
}

/** The lines outside fenced code blocks (links and headings inside them are examples, not the page's own). */
function proseLines(markdown: string): string[] {
  let fenced = false;
  return markdown.split('\n').filter((line) => {
    if (/^\s*```/.test(line)) {
      fenced = !fenced;
      return false;
    }
    return !fenced;
  });
}

/** GitHub's heading anchor: lower case, punctuation dropped, spaces as hyphens; a repeated one gets -1, -2, … */
function headingAnchors(markdown: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  for (const line of proseLines(markdown)) {
    const heading = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (!heading?.[1]) continue;
    const text = heading[1].replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1').replace(/[`*]/g, '');
    const slug = text
      .toLowerCase()
      .replace(/[^\p{L}\p{N} _-]/gu, '')
      .replace(/ /g, '-');
    const count = seen.get(slug) ?? 0;
    seen.set(slug, count + 1);
    anchors.add(count === 0 ? slug : `${slug}-${count}`);
  }
  return anchors;
}

/** Relative link targets of a page (inline code spans and absolute URLs left out). */
function relativeLinks(markdown: string): string[] {
  const targets: string[] = [];
  for (const line of proseLines(markdown)) {
    const prose = line.replace(/`[^`]*`/g, '');
    for (const match of prose.matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)) {
      const target = match[1] ?? '';
      if (!/^[a-z][a-z0-9+.-]*:/i.test(target)) targets.push(target);
    }
  }
  return targets;
}

/** Every relative link of `file` that does not resolve, as "file: target (why)". */
function brokenLinks(file: string): string[] {
  const broken: string[] = [];
  for (const target of relativeLinks(readFileSync(path.join(repoRoot, file), 'utf8'))) {
    const [linkPath = '', anchor] = target.split('#', 2);
    const resolved = linkPath ? path.resolve(repoRoot, path.dirname(file), decodeURIComponent(linkPath)) : path.join(repoRoot, file);
    if (!existsSync(resolved)) {
      broken.push(`${file}: ${target} (no such file)`);
      continue;
    }
    if (anchor === undefined || !resolved.endsWith('.md')) continue;
    if (!headingAnchors(readFileSync(resolved, 'utf8')).has(anchor)) broken.push(`${file}: ${target} (no such heading)`);
  }
  return broken;
}

describe('documentation links', () => {
  it('finds the GitHub anchor of a heading, repeated ones numbered', () => {
    const anchors = headingAnchors('# Front-end stack, and why\n## The `status` query\n## Pages\n## Pages\n```\n# not a heading\n```');
    assert.deepEqual([...anchors], ['front-end-stack-and-why', 'the-status-query', 'pages', 'pages-1']);
  });

  it('resolves every relative link and #anchor of the README, docs/ and bench/README.md', () => {
    const files = documentationFiles();
    assert.ok(files.length > 10, `found only ${files.join(', ')}`);
    assert.deepEqual(files.flatMap(brokenLinks), []);
  });
});
