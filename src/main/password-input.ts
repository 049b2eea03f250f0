/**
 * A password for the CLI, never from its arguments (visible to every user in `ps` and kept in shell
 * history): piped on stdin when stdin is not a terminal, else typed at a prompt that does not echo.
 */
export async function readPassword(prompt: string): Promise<string> {
  const stdin = process.stdin;
  if (!stdin.isTTY) {
    let text = '';
    for await (const chunk of stdin) text += chunk.toString();
    return text.replace(/\r?\n$/, '');
  }
  const first = await promptHidden(prompt);
  const second = await promptHidden('Repeat it: ');
  if (first !== second) throw new PasswordInputError('the two passwords differ');
  return first;
}

export class PasswordInputError extends Error {}

function promptHidden(prompt: string): Promise<string> {
  const stdin = process.stdin;
  process.stderr.write(prompt);
  stdin.setRawMode(true);
  stdin.resume();
  return new Promise((resolve, reject) => {
    let typed = '';
    const done = (finish: () => void): void => {
      stdin.setRawMode(false);
      stdin.pause();
      stdin.off('data', onData);
      process.stderr.write('\n');
      finish();
    };
    const onData = (chunk: Buffer): void => {
      for (const char of chunk.toString('utf8')) {
        if (char === '\r' || char === '\n') return done(() => resolve(typed));
        if (char === '\u0003' || char === '\u0004') return done(() => reject(new PasswordInputError('cancelled')));
        if (char === '\u007f' || char === '\b') typed = typed.slice(0, -1);
        else typed += char;
      }
    };
    stdin.on('data', onData);
  });
}
