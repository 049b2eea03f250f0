// The files the lint's text checks read: what git tracks or would track (new files too), so a check sees a file
// before it is committed and never one git ignores.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/** Every file git tracks or would track below `root`, by its path from `root`. */
export function trackedFiles(root) {
  const listed = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard', '-z'], {
    cwd: root,
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  });
  return [...new Set(listed.split('\0'))].filter((file) => file !== '');
}

/** The file's text, or undefined when git lists it but the work tree has deleted it. */
export function trackedText(root, file) {
  try {
    return readFileSync(join(root, file), 'utf8');
  } catch {
    return undefined;
  }
}

/** One line per line of `text` that `pattern` matches: `file:line: text`. */
export function matchingLines(file, text, pattern) {
  const found = [];
  text.split('\n').forEach((line, index) => {
    if (pattern.test(line)) found.push(`${file}:${index + 1}: ${line.trim().slice(0, 160)}`);
  });
  return found;
}
