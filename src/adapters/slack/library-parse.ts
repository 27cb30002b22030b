/**
 * The library's words in Slack's `/lesson` text (command-parse.ts): `material list`, `material remove <name>`,
 * and `start <topic> from:<name>` (everything after `from:` is the name, spaces and all). Slack's slash commands
 * carry no files, so `material add` there says how to add one: a mention with the file shared (events.ts). Pure.
 */

import { type Locale, t } from "../../i18n/index.ts";
import type { LessonCommand } from "../lesson/commands.ts";
import { slackTextToPlain } from "./text.ts";

/** `material …` as a command. */
export function parseSlackLibrary(args: string[], locale: Locale): LessonCommand {
	const [sub, ...rest] = args;
	const name = slackTextToPlain(rest.join(" "), { mentions: "keep" });
	switch (sub?.toLowerCase()) {
		case undefined:
		case "list":
			return { kind: "material-list" };
		case "remove":
		case "delete":
			return name === ""
				? { kind: "invalid", message: t(locale, "library.noName") }
				: { kind: "material-remove", name };
		case "add":
			return { kind: "invalid", message: t(locale, "library.slackAdd") };
		default:
			return { kind: "help", unknown: `material ${sub}`.slice(0, 40) };
	}
}

/** The topic words and the library name of `start … from:<name>` (undefined when there is no `from:`). */
export function splitLibraryName(words: string[]): { words: string[]; library?: string } {
	const at = words.findIndex((w) => /^from:/i.test(w));
	if (at < 0) return { words };
	const library = slackTextToPlain([words[at]?.slice(5) ?? "", ...words.slice(at + 1)].join(" ").trim(), {
		mentions: "keep",
	});
	return { words: words.slice(0, at), library };
}
