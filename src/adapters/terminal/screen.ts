/**
 * Where the playground writes: blocks separated by a blank line, word-wrapped
 * to the terminal's current width, and a one-line status ("thinking…") that
 * the next block or prompt replaces. On a pipe: plain blocks, no status.
 */

import type { Writable } from "node:stream";
import { wrapText } from "./format.ts";

/** The playground's output. */
export class Screen {
	private status = false;

	/** `terminal`: the output is a terminal (wrap to its width, show statuses). */
	constructor(
		private readonly output: Writable & { columns?: number },
		private readonly terminal: boolean,
	) {}

	/** Prints a block (then a blank line). */
	print(text: string): void {
		this.clearStatus();
		const width = this.terminal ? this.output.columns : undefined;
		this.output.write(`${width !== undefined ? wrapText(text, width) : text}\n\n`);
	}

	/** Shows a plain-text status line in place (terminals only); the next print or clearStatus removes it. */
	showStatus(text: string, style: (text: string) => string = (t) => t): void {
		if (!this.terminal) return;
		this.clearStatus();
		// One row only, or clearing it would leave the wrapped part behind.
		const room = Math.max(10, (this.output.columns ?? 80) - 1);
		this.output.write(style(text.length > room ? `${text.slice(0, room - 1)}…` : text));
		this.status = true;
	}

	/** Removes the status line, if one shows (call before a prompt draws itself). */
	clearStatus(): void {
		if (!this.status) return;
		this.output.write("\r\x1b[2K");
		this.status = false;
	}
}
