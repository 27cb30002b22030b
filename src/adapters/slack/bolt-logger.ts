/**
 * Bolt and the Web API client log through @slack/logger's interface (variadic messages);
 * this bridges them onto our pino-style Logger so one logger sees everything.
 */

import { type Logger as BoltLogger, LogLevel } from "@slack/bolt";
import type { Logger } from "../../core/contracts/logger.ts";

function describe(part: unknown): string {
	if (part instanceof Error) return part.message;
	if (typeof part === "string") return part;
	try {
		return JSON.stringify(part);
	} catch {
		return String(part);
	}
}

/** A Bolt logger writing to `logger`; Bolt's debug lines pass only after setLevel(DEBUG). */
export function toBoltLogger(logger: Logger): BoltLogger {
	let level = LogLevel.INFO;
	const log = logger.child({ component: "bolt" });
	const fields = (parts: unknown[]): Record<string, unknown> => {
		const err = parts.find((p) => p instanceof Error);
		return err ? { err } : {};
	};
	return {
		// Bolt's debug lines (request bodies, pings) are chatty: passed on only at the debug level.
		debug: (...parts: unknown[]) => {
			if (level === LogLevel.DEBUG) log.debug(fields(parts), parts.map(describe).join(" "));
		},
		info: (...parts: unknown[]) => log.info(fields(parts), parts.map(describe).join(" ")),
		warn: (...parts: unknown[]) => log.warn(fields(parts), parts.map(describe).join(" ")),
		error: (...parts: unknown[]) => log.error(fields(parts), parts.map(describe).join(" ")),
		setLevel: (next: LogLevel) => {
			level = next;
		},
		getLevel: () => level,
		setName: () => {},
	};
}
