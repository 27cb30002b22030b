/**
 * Parsing `/lesson …` text into the LessonCommand every platform shares (lesson/commands.ts runs it). Pure.
 * Slack escapes mentions when the command asks for it (`<@U123|ada>`, `<#C123|general>`);
 * raw ids are accepted too.
 */

import { MAX_RETENTION_DAYS } from "../../agent/index.ts";
import type { LessonMode } from "../../core/contracts/events.ts";
import { DEFAULT_LOCALE, type Locale, t } from "../../i18n/index.ts";
import type { LessonCommand } from "../lesson/commands.ts";
import { parsePriceSetting } from "../lesson/lesson-rules.ts";
import { parseSlackLibrary, splitLibraryName } from "./library-parse.ts";
import { slackTextToPlain } from "./text.ts";

const USER = /^<@([UW][A-Z0-9]+)(?:\|[^>]*)?>$/;
const CHANNEL = /^(?:<#([CG][A-Z0-9]+)(?:\|[^>]*)?>|([CG][A-Z0-9]{2,}))$/;

function parseConfig(args: string[], locale: Locale): LessonCommand {
	const [setting, ...rest] = args;
	if (setting === undefined) return { kind: "config" };
	switch (setting.toLowerCase()) {
		case "channels":
		case "channel": {
			if (rest.length === 1 && rest[0]?.toLowerCase() === "all") return { kind: "config", change: { channels: [] } };
			const ids = rest.map((r) => CHANNEL.exec(r)).map((m) => m?.[1] ?? m?.[2]);
			if (ids.length === 0 || ids.some((id) => id === undefined))
				return { kind: "config", error: t(locale, "config.channels") };
			return { kind: "config", change: { channels: [...new Set(ids as string[])] } };
		}
		case "limit": {
			const n = Number(rest[0]);
			if (rest.length !== 1 || !Number.isInteger(n) || n < 0 || n > 1000)
				return { kind: "config", error: t(locale, "config.limit") };
			return { kind: "config", change: { lessonsPerDay: n } };
		}
		case "mode": {
			const m = rest[0]?.toLowerCase();
			if (rest.length !== 1 || (m !== "solo" && m !== "group"))
				return { kind: "config", error: t(locale, "config.mode") };
			return { kind: "config", change: { defaultMode: m } };
		}
		case "server_tokens_per_day":
		case "server-tokens":
		case "member_tokens_per_day":
		case "member-tokens": {
			const n = Number(rest[0]);
			if (rest.length !== 1 || !Number.isSafeInteger(n) || n < 0)
				return { kind: "config", error: t(locale, "config.tokens") };
			const key = setting.toLowerCase().startsWith("server") ? "serverTokensPerDay" : "memberTokensPerDay";
			return { kind: "config", change: { [key]: n } };
		}
		case "vote_seconds":
		case "vote-seconds": {
			const n = Number(rest[0]);
			if (!Number.isInteger(n) || n <= 0) return { kind: "config", error: t(locale, "config.voteSeconds") };
			return { kind: "config", change: { voteSeconds: n } };
		}
		case "vote_names":
		case "vote-names": {
			const v = (rest[0] ?? "").toLowerCase();
			if (v !== "on" && v !== "off") return { kind: "config", error: t(locale, "config.voteNames") };
			return { kind: "config", change: { voteNames: v === "on" } };
		}
		case "members_add_material":
		case "members-add-material": {
			const v = (rest[0] ?? "").toLowerCase();
			if (v !== "on" && v !== "off") return { kind: "config", error: t(locale, "config.membersAddMaterial") };
			return { kind: "config", change: { membersAddMaterial: v === "on" } };
		}
		case "price": {
			const price = parsePriceSetting(rest.join(" "), locale);
			if ("error" in price) return { kind: "config", error: price.error };
			return { kind: "config", change: { price } };
		}
		default:
			return {
				kind: "config",
				error: t(locale, "config.unknown", { setting: setting.slice(0, 40) }),
			};
	}
}

/** Parse the text after `/lesson`. Never throws; anything unknown becomes help. */
export function parseLessonCommand(text: string, locale: Locale = DEFAULT_LOCALE): LessonCommand {
	const words = text.trim().split(/\s+/).filter(Boolean);
	const [sub, ...args] = words;
	switch (sub?.toLowerCase()) {
		case undefined:
		case "help":
			return { kind: "help" };
		case "end":
		case "stop":
			return { kind: "end" };
		case "status":
			return { kind: "status" };
		case "usage":
			return { kind: "usage" };
		case "config":
			return parseConfig(args, locale);
		case "review":
		case "progress":
		case "report":
			return { kind: sub.toLowerCase() as "review" | "progress" | "report" };
		case "dashboard":
			return { kind: "dashboard" };
		case "forget-me":
		case "forgetme":
			return { kind: "forget-me" };
		case "retention": {
			if (args.length === 0) return { kind: "retention" };
			const n = Number(args[0]);
			return args.length === 1 && Number.isInteger(n) && n >= 1 && n <= MAX_RETENTION_DAYS
				? { kind: "retention", days: n }
				: { kind: "retention", error: t(locale, "config.retention") };
		}
		case "remind": {
			const v = args[0]?.toLowerCase();
			return v === "on" || v === "off" ? { kind: "remind", on: v === "on" } : { kind: "remind" };
		}
		case "material":
			return parseSlackLibrary(args, locale);
		case "start": {
			let mode: LessonMode | undefined;
			let forUser: string | undefined;
			let language: string | undefined;
			const topic: string[] = [];
			const { words: before, library } = splitLibraryName(args);
			for (const word of before) {
				const lower = word.toLowerCase();
				const lang = /^(?:language:|lang:|--lang=|--language=)(.*)$/.exec(lower);
				if (lang) language = (lang[1] ?? "").slice(0, 20);
				else if (lower === "--group" || lower === "mode:group") mode = "group";
				else if (lower === "--solo" || lower === "mode:solo") mode = "solo";
				else if (topic.length === 0 && forUser === undefined && USER.test(word)) forUser = USER.exec(word)?.[1];
				else topic.push(word);
			}
			// Slack's escapes and links undone in the topic (`C++ &amp; Rust` is `C++ & Rust`), mentions kept as @name.
			const command: LessonCommand = { kind: "start", topic: slackTextToPlain(topic.join(" "), { mentions: "keep" }) };
			if (mode) command.mode = mode;
			if (forUser) command.learner = { id: forUser };
			if (language !== undefined) command.language = language;
			if (library !== undefined) command.library = library;
			return command;
		}
		default:
			return { kind: "help", unknown: (sub ?? "").slice(0, 40) };
	}
}
