// The CLI's output lines. A reader that stops early (`jtrace demo | head`) closes the pipe: the
// rest of the output is dropped quietly and the command still finishes its work, rather than the
// process dying with an EPIPE stack trace.
import type { Writable } from 'node:stream';
import type { CliIo } from './context.ts';

function lineWriter(stream: Writable): (line: string) => void {
  let closed = false;
  stream.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code === 'EPIPE') closed = true;
    else throw error;
  });
  return (line) => {
    if (!closed) stream.write(`${line}\n`);
  };
}

export function processIo(stdout: Writable = process.stdout, stderr: Writable = process.stderr): CliIo {
  return { out: lineWriter(stdout), err: lineWriter(stderr) };
}
