/**
 * The process logger (pino). Servers log JSON lines to stderr (what log
 * collectors want), or short readable lines when stderr is a terminal; the
 * playground logs to a file so log lines never garble the lesson on screen.
 */

import { mkdirSync } from "node:fs";
import { dirname } from "node:path";
import { styleText } from "node:util";
import pino from "pino";
import type { LogLevel } from "../config.ts";
import type { Logger } from "../core/contracts/logger.ts";

/** A Logger that can also flush (pino's file destination buffers). */
export interface ProcessLogger extends Logger {
	flush(): void;
}

/** Where logs go: stderr (pretty when a terminal) or a file. */
export type LogTarget = { kind: "stderr"; pretty?: boolean } | { kind: "file"; path: string };

/** Creates the process logger. */
export function createProcessLogger(level: LogLevel, target: LogTarget): ProcessLogger {
	const options = { level, base: { app: "learnharness" } };
	let logger: pino.Logger;
	if (target.kind === "file") {
		mkdirSync(dirname(target.path), { recursive: true });
		logger = pino(options, pino.destination({ dest: target.path, sync: true, mkdir: true }));
	} else if (target.pretty) {
		logger = pino(options, { write: (line: string) => process.stderr.write(prettyLine(line)) });
	} else {
		logger = pino(options, pino.destination({ dest: 2, sync: true }));
	}
	return wrap(logger);
}

function wrap(logger: pino.Logger): ProcessLogger {
	return {
		debug: (fields, message) => logger.debug(fields, message),
		info: (fields, message) => logger.info(fields, message),
		warn: (fields, message) => logger.warn(fields, message),
		error: (fields, message) => logger.error(fields, message),
		child: (bindings) => wrap(logger.child(bindings)),
		flush: () => logger.flush(),
	};
}

const LEVEL_NAMES: Record<number, string> = {
	10: "TRACE",
	20: "DEBUG",
	30: "INFO",
	40: "WARN",
	50: "ERROR",
	60: "FATAL",
};
const LEVEL_STYLE: Record<number, Parameters<typeof styleText>[0]> = { 40: "yellow", 50: "red", 60: "red" };
const OMIT = new Set(["level", "time", "msg", "pid", "hostname", "app"]);

/** One pino JSON line as `12:00:01 WARN message key=value …` (exported for tests). */
export function prettyLine(line: string): string {
	let record: Record<string, unknown>;
	try {
		record = JSON.parse(line) as Record<string, unknown>;
	} catch {
		return line;
	}
	const level = typeof record.level === "number" ? record.level : 30;
	const time = new Date(typeof record.time === "number" ? record.time : Date.now()).toTimeString().slice(0, 8);
	const name = (LEVEL_NAMES[level] ?? "LOG").padEnd(5);
	const style = LEVEL_STYLE[level];
	const fields = Object.entries(record)
		.filter(([k]) => !OMIT.has(k))
		.map(([k, v]) => `${k}=${typeof v === "string" ? v : JSON.stringify(v)}`)
		.join(" ");
	// Only used when stderr is a terminal; styleText checks stdout, so skip its stream check.
	const st = (s: Parameters<typeof styleText>[0], text: string): string =>
		styleText(s, text, { validateStream: false });
	const head = `${st("dim", time)} ${style ? st(style, name) : name}`;
	return `${head} ${String(record.msg ?? "")}${fields ? ` ${st("dim", fields)}` : ""}\n`;
}
