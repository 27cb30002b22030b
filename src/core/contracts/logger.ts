/**
 * The logger every layer takes as a dependency: pino's calling convention
 * (an object of fields, then a message), so pino passes as is and tests can
 * pass a silent or recording one.
 */

/** Structured log fields. */
export type LogFields = Record<string, unknown>;

/** A pino-compatible logger. Implementations must not throw. */
export interface Logger {
	debug(fields: LogFields, message?: string): void;
	info(fields: LogFields, message?: string): void;
	warn(fields: LogFields, message?: string): void;
	error(fields: LogFields, message?: string): void;
	child(bindings: LogFields): Logger;
}

/** A logger that drops everything (tests, benchmarks). */
export const silentLogger: Logger = {
	debug() {},
	info() {},
	warn() {},
	error() {},
	child() {
		return silentLogger;
	},
};
