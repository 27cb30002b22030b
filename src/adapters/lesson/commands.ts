/**
 * `/lesson` commands, written once for every platform. Each platform parses
 * its input (Discord's interaction options, Slack's text) into a
 * `LessonCommand` and says where it ran (`CommandWhere`); `runCommand` runs
 * it against the controller and returns the reply, which the platform
 * delivers privately to the person who asked (Discord: the deferred
 * ephemeral reply; Slack: the command's response_url, files in their DM).
 * Refusals on the way (admins only, a closed channel, the daily limit) are
 * told through the actor by the controller itself; the reply is then
 * undefined. The platform's words (bold, escaping, a thread link, its help
 * text, its reply length) come from its port.
 */

import type { LessonMode, Participant } from "../../core/contracts/events.ts";
import { DEFAULT_LOCALE, LANGUAGE_NAMES, LOCALES, resolveLocale, t, tn } from "../../i18n/index.ts";
import type { QuestionCard } from "../../render/index.ts";
import { usageText } from "./budget-texts.ts";
import type { LessonController } from "./controller.ts";
import type { LessonRulesChange } from "./lesson-rules.ts";
import type { LibraryCommand } from "./library.ts";
import type { MaterialSource } from "./material-file.ts";
import { adminHintIn } from "./notices.ts";
import type { Actor, LessonPlace, PlatformPort } from "./port.ts";
import { oneLine, rulesText, statusText } from "./texts.ts";

/** A parsed `/lesson` command: what the person asked for, whatever platform they asked on. */
export type LessonCommand =
	/** `unknown`: the word that was not understood (help is shown after it). */
	| { kind: "help"; unknown?: string }
	/** `language`: as given; an unsupported one is refused (nothing starts). `learner`: start it for this member (admins). */
	/** `material`: the learner's PDF the lesson is grounded in (a platform file, or the terminal's bytes). */
	| {
			kind: "start";
			topic: string;
			mode?: LessonMode;
			learner?: Participant;
			language?: string;
			material?: MaterialSource;
			/** A document of the community's library (by name) the lesson is grounded in (library.ts). */
			library?: string;
	  }
	/** `/lesson material add|list|remove`: the community's library (library.ts). */
	| LibraryCommand
	| { kind: "end" }
	| { kind: "status" }
	/** No change: show the rules; `error`: what was wrong with the change asked for (nothing is saved). */
	| { kind: "config"; change?: LessonRulesChange; error?: string }
	| { kind: "usage" }
	| { kind: "review" }
	| { kind: "progress" }
	| { kind: "report" }
	/** Admins: a one-time sign-in link to the web dashboard, privately. */
	| { kind: "dashboard" }
	| { kind: "forget-me" }
	/** `on` missing: the usage is shown. */
	| { kind: "remind"; on?: boolean }
	/** No days: show the setting; `error`: what was wrong with the days given. */
	| { kind: "retention"; days?: number; error?: string }
	/** Input the platform could not read (a bot as learner, a channel lessons cannot run in): the message says why. */
	| { kind: "invalid"; message: string };

/** Where a command ran, as the platform knows it. */
export interface CommandWhere {
	/** The guild or team. */
	community: string;
	/** Where a lesson or a review opens from here (a Discord thread's parent channel; Discord's public thread itself for start). */
	place: LessonPlace;
	/** The thread the command ran in, when it ran in one (Discord). */
	thread?: string;
	/** The lesson the command is about (`anyone`: not only the actor's own); undefined when there is none here. */
	lesson(anyone: boolean): Promise<string | undefined>;
}

/** A private file (the progress picture, the admin's CSV). */
export interface CommandFile {
	data: Buffer;
	name: string;
	title: string;
}

/** What a command says back to the person who ran it, privately. */
export type CommandReply =
	| { text: string }
	/** A picture for the text (platforms whose private replies carry none show the text alone: it holds the outline). */
	| { text: string; picture: { png: Buffer; caption: string } }
	/**
	 * A file with its text. Platforms that cannot attach it to a private reply send it apart (a direct message)
	 * and say `separately`; `notSent` when that failed.
	 */
	| { text: string; file: CommandFile; separately: string; notSent: string }
	/** A confirm card (forget-me), rendered by the platform's card renderer; its button routes like any card's. */
	| { card: QuestionCard };

/** Which commands need the learning service. */
const PROFILE_KINDS = new Set<LessonCommand["kind"]>([
	"review",
	"progress",
	"report",
	"forget-me",
	"remind",
	"retention",
]);

/** Cut text to `max` characters on a word boundary when possible, with an ellipsis. */
export function clipReply(text: string, max: number): string {
	if (text.length <= max) return text;
	const cut = text.slice(0, max - 1);
	const space = cut.lastIndexOf(" ");
	return `${space > max * 0.6 ? cut.slice(0, space) : cut}…`;
}

/** Run a command; its reply, or undefined when the actor was already told (a refusal) or nothing is to be said. */
export async function runCommand(
	controller: LessonController,
	port: PlatformPort,
	actor: Actor,
	where: CommandWhere,
	command: LessonCommand,
): Promise<CommandReply | undefined> {
	const locale = actor.locale ?? DEFAULT_LOCALE;
	const style = port.style;
	const max = port.limits.replyChars ?? 2000;
	const say = (text: string): CommandReply => ({ text: clipReply(text, max) });
	const bold = style.bold ?? ((text: string) => `**${text}**`);
	const esc = style.escape ?? ((text: string) => text);
	const link = (threadId: string, key: "command.openThread" | "command.openTheThread") =>
		port.threadLink?.(threadId, t(locale, key)) ?? Promise.resolve(undefined);
	const place = style.place ?? "server";
	if (PROFILE_KINDS.has(command.kind) && !controller.profile) return say(t(locale, "profile.disabled"));
	const flows = controller.profile;
	switch (command.kind) {
		case "invalid":
			return say(command.message);
		case "help": {
			const help = port.helpText?.(locale) ?? "";
			const unknown = command.unknown ? `${t(locale, "command.unknown", { word: esc(command.unknown) })}\n` : "";
			return say(`${unknown}${help}`);
		}
		case "start": {
			// The explicit language wins over the member's own; an unsupported one is refused (nothing starts).
			const language = command.language !== undefined ? resolveLocale(command.language) : undefined;
			if (command.language !== undefined && !language) {
				const languages = LOCALES.map((l) => `\`${l}\` (${LANGUAGE_NAMES[l].native})`).join(", ");
				return say(t(locale, "command.unknownLanguage", { language: esc(command.language), languages }));
			}
			const learner = command.learner && command.learner.id !== actor.by.id ? command.learner : undefined;
			const opened = await controller.start(actor, where.place, {
				topic: command.topic,
				...(command.mode ? { mode: command.mode } : {}),
				...(learner ? { learner } : {}),
				...(language ? { language } : {}),
				...(command.material ? { material: command.material } : {}),
				...(command.library !== undefined ? { library: command.library } : {}),
			});
			if (!opened.ok) return undefined;
			const topic = bold(esc(oneLine(opened.intro.topic, 200)));
			const mention = style.mention ?? ((id: string) => `<@${id}>`);
			const forWhom = learner ? t(locale, "command.startedFor", { learner: mention(learner.id) }) : "";
			const mode = t(locale, opened.intro.mode === "group" ? "status.mode.group" : "status.mode.solo");
			const there = await link(opened.threadId, "command.openThread");
			const started = there
				? t(locale, "command.started", { mode, topic, forWhom, link: there })
				: t(locale, "command.startedAbove", { mode, topic, forWhom });
			// The material it teaches from, and what in it was neutralised (scripts ignored, instructions quoted).
			const m = opened.material;
			const material = m
				? [
						t(locale, m.unit === "part" ? "command.materialParts" : "command.material", {
							name: esc(m.name),
							pages: String(m.pages),
						}),
						...m.warnings.map(esc),
					]
				: [];
			return say([started, ...material].join("\n"));
		}
		case "end": {
			const threadId = await where.lesson(false);
			await controller.end(actor, threadId);
			return undefined;
		}
		case "status": {
			const status = await controller.status(actor, await where.lesson(true));
			if (!status) return undefined;
			// Run in the lesson's own thread, a link would point at itself.
			const there =
				status.summary.sessionId === where.thread
					? undefined
					: await link(status.summary.sessionId, "command.openTheThread");
			const text = clipReply(statusText(status, style, there && ` · ${there}`, locale), max);
			const png = status.picture?.png;
			return png && style.noticePictures !== false
				? { text, picture: { png, caption: status.picture?.caption ?? "" } }
				: { text };
		}
		case "config": {
			const shown = await controller.config(actor, where.community, command.error ? undefined : command.change);
			if (!shown) return undefined;
			const head = command.error ? `${command.error}\n\n` : shown.saved ? `${t(locale, "rules.saved")}\n` : "";
			return say(`${head}${rulesText(shown.rules, style, place, locale)}`);
		}
		case "material-add":
		case "material-list":
		case "material-remove": {
			if (!controller.library) return say(t(locale, "library.off"));
			const said = await controller.library.run(actor, where.community, command);
			return said === undefined ? undefined : say(said);
		}
		case "usage": {
			const report = await controller.usage(actor, where.community);
			return report ? say(usageText(report, style, locale)) : undefined;
		}
		case "dashboard": {
			if (!(await actor.isAdmin())) {
				await actor.notify(t(locale, "dashboard.adminsOnly", { adminHint: adminHintIn(style, locale) }));
				return undefined;
			}
			if (!controller.dashboard) return say(t(locale, "dashboard.off"));
			const link = await controller.dashboard.issue({
				platform: port.name,
				community: where.community,
				admin: actor.by,
			});
			return say(t(locale, "dashboard.link", { url: link.url, minutes: link.minutes }));
		}
	}
	if (!flows) return undefined;
	switch (command.kind) {
		case "review": {
			const started = await flows.review.start(actor, {
				community: where.community,
				channelId: where.place.channelId,
			});
			// Held privately, the first question is already the reply.
			if (!started || !("threadId" in started)) return undefined;
			const there = await link(started.threadId, "command.openThread");
			return say(there ? t(locale, "profile.reviewReadyLink", { link: there }) : t(locale, "profile.reviewReady"));
		}
		case "progress": {
			const shown = await flows.progress(actor, where.community);
			if (!shown) return undefined;
			const png = shown.picture?.png;
			if (!png) return say(shown.text);
			const title = shown.picture?.caption ?? t(locale, "profile.progressTitle");
			return {
				text: clipReply(shown.text, max),
				file: { data: png, name: "progress.png", title },
				separately: t(locale, "profile.progressInDm"),
				notSent: clipReply(shown.text, max),
			};
		}
		case "report": {
			const report = await flows.report(actor, where.community);
			if (!report) return undefined;
			return {
				text: tn(locale, "profile.reportRows", report.rows.length),
				file: {
					data: Buffer.from(report.csv, "utf8"),
					name: `lessons-${where.community}.csv`,
					title: t(locale, "profile.reportTitle"),
				},
				separately: t(locale, "profile.reportInDm"),
				notSent: t(locale, "profile.reportNotSent"),
			};
		}
		case "forget-me":
			return { card: flows.forgetCard(locale) };
		case "retention": {
			if (command.error) return say(command.error);
			const said = await flows.retention(actor, where.community, command.days);
			return said ? say(said) : undefined;
		}
		case "remind": {
			if (command.on === undefined) return say(t(locale, "profile.remindUsage"));
			return say(
				await flows.remind(actor, { community: where.community, channelId: where.place.channelId }, command.on),
			);
		}
	}
}
