/**
 * Where the playground's answers come from: interactive prompts on a terminal
 * (arrow keys or a letter, then Enter), or one line per answer when standard
 * input is a pipe or a file, so a lesson can be scripted.
 */

import { createInterface, type Interface } from "node:readline";
import type { Readable, Writable } from "node:stream";
import { input as inputPrompt, Separator, select } from "@inquirer/prompts";
import type { HelpKind } from "../../core/contracts/help.ts";
import { DEFAULT_LOCALE, type Locale, type MessageKey, t } from "../../i18n/index.ts";
import type { QuestionCard } from "../../render/index.ts";

/** A playground command typed instead of an answer (help: only where a question is open). */
export type PlaygroundCommand =
	| { command: "quit" }
	| { command: "end" }
	| { command: "help"; kind: HelpKind }
	/** Words typed at a question instead of a pick: the lesson reads them as an answer, a question or a request. */
	| { command: "say"; text: string };

/** The typed help commands on an open quiz (`play.helpCommands` lists them: they stay English words). */
const HELP_WORDS: Readonly<Record<string, HelpKind>> = {
	hint: "hint",
	"/hint": "hint",
	again: "again",
	"try again": "again",
	"/again": "again",
	explain: "explain",
	"explain again": "explain",
	"explain another way": "explain",
	"/explain": "explain",
	"not sure": "not-sure",
	"i'm not sure": "not-sure",
	"im not sure": "not-sure",
	"/notsure": "not-sure",
	show: "show",
	"show answer": "show",
	"show the answer": "show",
	"/show": "show",
};

/** A help command typed on an open quiz (`hint`, `again`, `explain`, `not sure`, `show`); undefined for anything else. */
export function parseHelpCommand(line: string): PlaygroundCommand | undefined {
	const words = line
		.trim()
		.toLowerCase()
		.replace(/(?<![.!?])[.!?]+$/, "") // only where the run starts: "[.!?]+$" rescanned it from every mark
		.replace(/\s+/g, " ");
	const kind = HELP_WORDS[words];
	return kind ? { command: "help", kind } : undefined;
}

/** What a prompt gives back: an answer, a command, or `undefined` when input ended. */
export type Answer<T> = T | PlaygroundCommand | undefined;

/** A source of answers. Implementations must not throw: input trouble ends as `undefined`. */
export interface AnswerSource {
	/** Picks one of the card's choices: its 0-based index. */
	choose(card: QuestionCard): Promise<Answer<number>>;
	/**
	 * Reads free text (never empty). `answer`: the tutor echoes it back (a graded card), so the prompt may vanish;
	 * `help`: an open quiz, so the help commands (hint, again, explain, not sure, show) are commands.
	 */
	text(message: string, options?: { answer?: boolean; help?: boolean; locale?: Locale }): Promise<Answer<string>>;
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
				const help = parseHelpCommand(line);
				if (help) {
					echo(line.trim());
					return help;
				}
				// Words, not a letter out of range: typed like a message in a chat thread (the lesson reads them).
				if (line.trim().length > 1) {
					echo(line.trim());
					return { command: "say", text: line.trim() };
				}
				const got = JSON.stringify(line.slice(0, 40));
				output.write(`${t(card.locale ?? DEFAULT_LOCALE, "play.expected", { letters, got })}\n`);
			}
		},
		async text(_message, options = {}) {
			for (;;) {
				const line = await nextLine();
				if (line === undefined) return undefined;
				const command = parseCommand(line) ?? (options.help === true ? parseHelpCommand(line) : undefined);
				if (command) {
					if (command.command === "help") echo(line.trim());
					return command;
				}
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

/** Values of the extra entries under a question's choices (choices are 0-based indexes). */
const PAUSE = -1;
const END = -2;
const SAY = -7;
/** Help entries under a quiz's choices: their values, and what they ask. */
const HELP_ENTRIES: ReadonlyArray<{ value: number; kind: HelpKind; word: string; key: MessageKey }> = [
	{ value: -3, kind: "hint", word: "hint", key: "play.menuHint" },
	{ value: -4, kind: "explain", word: "explain", key: "play.menuExplain" },
	{ value: -5, kind: "not-sure", word: "not sure", key: "play.menuNotSure" },
	{ value: -6, kind: "show", word: "show", key: "play.menuShow" },
];

/**
 * The pickers' key help ("↑↓ navigate • ⏎ select") in the lesson's language: inquirer writes its own
 * words in English, so its theme's help line is replaced (an action it adds later shows as it is).
 */
function keysHelp(locale: Locale): { style: { keysHelpTip: (keys: [string, string][]) => string } } {
	const words: Record<string, string> = {
		navigate: t(locale, "play.keyNavigate"),
		select: t(locale, "play.keySelect"),
	};
	return {
		style: { keysHelpTip: (keys) => keys.map(([key, action]) => `${key} ${words[action] ?? action}`).join(" • ") },
	};
}

/** A menu entry: the word to type, padded, then what it does in the lesson's language. */
const entry = (word: string, says: string): string => `${word.padEnd(10)} ${says}`;

/**
 * Interactive prompts (stdin is a terminal): arrow keys, a letter or a number, then Enter;
 * Ctrl+C (or the "pause" entry) pauses, the "end" entry ends the lesson after a confirmation.
 * `output` should be process.stdout: inquirer ends any other piped stream when a prompt closes.
 */
export function createPromptSource(input: Readable, output: Writable): AnswerSource {
	// close() cancels a prompt still on screen (a signal arrived while the learner was choosing).
	const closing = new AbortController();
	const context = { input, output, signal: closing.signal };
	const cancelled = (error: unknown): Answer<never> => {
		// Ctrl+C (ExitPromptError) or close(): pause, keep the lesson resumable.
		if (error instanceof Error && (error.name === "ExitPromptError" || error.name === "AbortPromptError"))
			return { command: "quit" };
		return undefined;
	};
	const confirmEnd = async (locale: Locale): Promise<boolean> => {
		try {
			// A choice in the lesson's language, not inquirer's English "(y/N)" (where a German "j" meant no).
			const choices = [
				{ value: false, name: t(locale, "play.endNo") },
				{ value: true, name: t(locale, "play.endYes") },
			];
			return await select<boolean>(
				{ message: t(locale, "play.endNow"), choices, loop: false, theme: keysHelp(locale) },
				{ ...context, clearPromptOnDone: true },
			);
		} catch {
			return false;
		}
	};
	return {
		async choose(card) {
			const locale = card.locale ?? DEFAULT_LOCALE;
			for (;;) {
				let value: number;
				try {
					value = await select<number>(
						{
							message: t(locale, "play.pickPrompt"),
							choices: [
								...card.choices.map((c) => ({ value: c.index, name: `${c.letter}. ${oneLine(c.text)}` })),
								...(card.source === "quiz"
									? [
											new Separator(" "),
											...HELP_ENTRIES.map((e) => ({ value: e.value, name: entry(e.word, t(locale, e.key)) })),
										]
									: []),
								new Separator(" "),
								{ value: SAY, name: entry("...", t(locale, "play.menuSay")) },
								{ value: PAUSE, name: entry("/quit", t(locale, "play.menuPause")) },
								{ value: END, name: entry("/end", t(locale, "play.menuEnd")) },
							],
							// No wrap-around: Up on the first choice must not land on "end the lesson".
							loop: false,
							theme: keysHelp(locale),
							pageSize: Math.min(card.choices.length + 8, 14),
						},
						{ ...context, clearPromptOnDone: true },
					);
				} catch (error) {
					return cancelled(error);
				}
				if (value === PAUSE) return { command: "quit" };
				if (value === SAY) {
					const said = await this.text(t(locale, "play.sayPrompt"), { locale });
					if (typeof said === "string") return { command: "say", text: said };
					if (said === undefined || said.command !== "help") return said;
					continue;
				}
				const help = HELP_ENTRIES.find((e) => e.value === value);
				if (help) return { command: "help", kind: help.kind };
				if (value !== END) return value;
				if (await confirmEnd(locale)) return { command: "end" };
			}
		},
		async text(message, options = {}) {
			const locale = options.locale ?? DEFAULT_LOCALE;
			try {
				const value = await inputPrompt(
					{
						message,
						required: true,
						validate: (v) =>
							v.trim() !== "" ||
							`${t(locale, "play.typePrompt")}${options.help === true ? ` ${t(locale, "play.helpCommands")}` : ""}`,
					},
					{ ...context, clearPromptOnDone: options.answer === true },
				);
				return parseCommand(value) ?? (options.help === true ? parseHelpCommand(value) : undefined) ?? value.trim();
			} catch (error) {
				return cancelled(error);
			}
		},
		close() {
			closing.abort();
		},
	};
}

function oneLine(text: string): string {
	return text.replace(/\s+/g, " ").trim();
}
