/**
 * The terminal under the contract suite: the playground on a live input stream (a line typed when the test
 * says), the real tutor on SQLite in memory, and everything it printed. `type` waits until the output after
 * the line shows what the test expects.
 */

import { PassThrough } from "node:stream";
import type { MockLanguageModelV3 } from "ai/test";
import { createLineSource } from "../../../src/adapters/terminal/input.ts";
import { runPlayground } from "../../../src/adapters/terminal/playground.ts";
import { createSessionStore, createTutor } from "../../../src/agent/index.ts";
import type { TutorEvent } from "../../../src/core/contracts/events.ts";

/** A running playground. */
export interface Terminal {
	events: TutorEvent[];
	/** Everything printed so far. */
	output(): string;
	/** Type a line; what was printed after it once it shows `until`. */
	type(line: string, until: string): Promise<string>;
	/** Wait until the output shows `text`. */
	shows(text: string): Promise<void>;
	/** End the input; the playground's outcome. */
	close(): Promise<string>;
}

/** Start the playground on `topic` with `model` (and a PDF the lesson teaches from, `--material`). */
export async function openTerminal(
	model: MockLanguageModelV3,
	topic: string,
	material?: { name: string; data: Uint8Array },
): Promise<Terminal> {
	const tutor = createTutor({ model, store: await createSessionStore("memory://"), maxRetries: 0 });
	const events: TutorEvent[] = [];
	tutor.subscribe((e) => void events.push(e));
	const input = new PassThrough();
	const out = new PassThrough();
	let text = "";
	out.on("data", (c: Buffer) => {
		text += c.toString();
	});
	const run = runPlayground({
		tutor,
		source: createLineSource(input, out),
		output: out,
		topic,
		...(material ? { material } : {}),
		plansDir: "/tmp/lh-contract-plans",
	});
	const since = async (mark: number, until: string) => {
		for (let i = 0; i < 3000 && !text.slice(mark).includes(until); i++)
			await new Promise((done) => setTimeout(done, 10));
		if (!text.slice(mark).includes(until)) throw new Error(`the terminal never showed "${until}"`);
		return text.slice(mark);
	};
	return {
		events,
		output: () => text,
		async type(line, until) {
			const mark = text.length;
			input.write(`${line}\n`);
			return since(mark, until);
		},
		shows: async (what) => void (await since(0, what)),
		async close() {
			input.end();
			const result = await run;
			await tutor.close();
			return result.outcome;
		},
	};
}
