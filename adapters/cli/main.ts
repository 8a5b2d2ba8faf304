import { cliProgram } from './program.ts';
import { databaseFailure, exitWithOneLine } from './failure.ts';

// Exit codes: 0 done; 1 the service unreachable or refusing, a usage error, or any other failure
// (one line on stderr, never a stack); 2 unreadable input files or settings (verify, kafka, rebuild).
await cliProgram()
  .parseAsync(process.argv)
  .catch((error: unknown) => exitWithOneLine(databaseFailure(error)));
