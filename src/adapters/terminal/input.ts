/**
 * Where the playground's answers come from: interactive prompts on a terminal
 * (arrow keys or a letter, then Enter), or one line per answer when standard
 * input is a pipe or a file, so a lesson can be scripted.
 */

import { createInterface, type Interface } from "node:readline";
import type { Readable, Writable } from "node:stream";
import { input as inputPrompt, select } from "@inquirer/prompts";
import type { QuestionCard } from "../../render/index.ts";

/** A playground command typed instead of an answer. */
export type PlaygroundCommand = { command: "quit" } | { command: "end" };

/** What a prompt gives back: an answer, a command, or `undefined` when input ended. */
export type Answer<T> = T | PlaygroundCommand | undefined;

/** A source of answers. Implementations must not throw: input trouble ends as `undefined`. */
export interface AnswerSource {
	/** Picks one of the card's choices: its 0-based index. */
	choose(card: QuestionCard): Promise<Answer<number>>;
	/** Reads free text (never empty). */
	text(message: string): Promise<Answer<string>>;
	close(): void;
}

/** `/quit` pauses (the lesson stays resumable), `/end` ends the lesson. */
export function parseCommand(line: string): PlaygroundCommand | undefined {
	const word = line.trim().toLowerCase();
	if (word === "/quit" || word === "/exit" || word === "/pause") return { command: "quit" };
	if (word === "/end") return { command: "end" };
	return undefined;
}

/** A scripted choice: a letter (A, b), a 1-based number, or the choice text itself; undefined when none fits. */
export function parseChoice(line: string, card: QuestionCard): number | undefined {
	const raw = line.trim().replace(/[.)]$/, "");
	if (raw === "") return undefined;
	const byLetter = card.choices.find((c) => c.letter.toLowerCase() === raw.toLowerCase());
	if (byLetter) return byLetter.index;
	if (/^\d+$/.test(raw)) {
		const n = Number(raw);
		const byNumber = card.choices[n - 1];
		// A number that is itself one of the choices' text wins over its position.
		const byText = card.choices.find((c) => c.text.trim() === raw);
		return (byText ?? byNumber)?.index;
	}
	return card.choices.find((c) => c.text.trim().toLowerCase() === raw.toLowerCase())?.index;
}

/** One answer a line (stdin not a terminal). Bad lines get a hint and the next line is read. */
export function createLineSource(input: Readable, output: Writable): AnswerSource {
	const rl: Interface = createInterface({ input, terminal: false, crlfDelay: Number.POSITIVE_INFINITY });
	const lines = rl[Symbol.asyncIterator]();
	let ended = false;
	const nextLine = async (): Promise<string | undefined> => {
		if (ended) return undefined;
		try {
			const next = await lines.next();
			if (next.done) {
				ended = true;
				return undefined;
			}
			return next.value;
		} catch {
			ended = true;
			return undefined;
		}
	};
	const echo = (text: string): void => {
		output.write(`> ${text}\n`);
	};
	return {
		async choose(card) {
			const letters = `${card.choices[0]?.letter}-${card.choices.at(-1)?.letter}`;
			for (;;) {
				const line = await nextLine();
				if (line === undefined) return undefined;
				const command = parseCommand(line);
				if (command) return command;
				const index = parseChoice(line, card);
				if (index !== undefined) {
					echo(line.trim());
					return index;
				}
				output.write(`(expected a letter ${letters}; got ${JSON.stringify(line.slice(0, 40))})\n`);
			}
		},
		async text() {
			for (;;) {
				const line = await nextLine();
				if (line === undefined) return undefined;
				const command = parseCommand(line);
				if (command) return command;
				if (line.trim() !== "") {
					echo(line.trim());
					return line.trim();
				}
			}
		},
		close() {
			ended = true;
			rl.close();
		},
	};
}

/**
 * Interactive prompts (stdin is a terminal): arrow keys or a letter, then Enter; Ctrl+C pauses.
 * `output` should be process.stdout: inquirer ends any other piped stream when a prompt closes.
 */
export function createPromptSource(input: Readable, output: Writable): AnswerSource {
	const context = { input, output, clearPromptOnDone: false };
	const cancelled = (error: unknown): Answer<never> => {
		// Ctrl+C (ExitPromptError) or a closed terminal: pause, keep the lesson resumable.
		if (error instanceof Error && (error.name === "ExitPromptError" || error.name === "AbortPromptError"))
			return { command: "quit" };
		return undefined;
	};
	return {
		async choose(card) {
			try {
				return await select(
					{
						message: "Your answer (arrow keys or a letter, then Enter)",
						choices: card.choices.map((c) => ({ value: c.index, name: `${c.letter}. ${oneLine(c.text)}` })),
						pageSize: Math.min(card.choices.length, 12),
					},
					context,
				);
			} catch (error) {
				return cancelled(error);
			}
		},
		async text(message) {
			try {
				const value = await inputPrompt(
					{
						message,
						required: true,
						validate: (v) => v.trim() !== "" || "Type an answer (or /quit to pause, /end to end the lesson).",
					},
					context,
				);
				return parseCommand(value) ?? value.trim();
			} catch (error) {
				return cancelled(error);
			}
		},
		close() {},
	};
}

function oneLine(text: string): string {
	return text.replace(/\s+/g, " ").trim();
}
