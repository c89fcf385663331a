// The importer's errors, each meant to be printed as one line for a person:
// bad input names the file (and the line when there is one), a refused setting
// names the setting, an interruption says how to finish.

/** The export itself is unusable: truncated zip, malformed XML, missing export.xml. */
export class ImportInputError extends Error {
  override readonly name = 'ImportInputError';
}

/** The command or its settings cannot be used as given (bad --user, time zone mismatch…). */
export class ImportUsageError extends Error {
  override readonly name = 'ImportUsageError';
}

/** Ctrl-C or SIGTERM: what was committed stays, and running the command again completes it. */
export class ImportInterrupted extends Error {
  override readonly name = 'ImportInterrupted';
  constructor() {
    super('interrupted; nothing is half-written: run the same command again to finish the import');
  }
}
