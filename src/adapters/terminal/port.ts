/**
 * The terminal's platform port: one lesson on one screen. Cards are printed
 * (a question under its progress line), the answered state is printed again
 * (a terminal cannot edit), the plan is its outline the first time (and when a
 * node turns shaky) and its caption line after a move, with the PNG written
 * under data/plans. Thread
 * ids read `terminal:<id>`.
 */

import { randomBytes } from "node:crypto";
import { userInfo } from "node:os";
import type { DerivedPlanStatuses, PlanTree } from "../../core/contracts/plan.ts";
import { DEFAULT_LOCALE, type Locale, t, tn } from "../../i18n/index.ts";
import {
	type Card,
	type PlanMastery,
	type PlanPicture,
	type PlanRenderer,
	planCaption,
	planOutline,
} from "../../render/index.ts";
import type { PlatformPort } from "../lesson/port.ts";
import { formatCard, formatMarkdown, formatPlanOutline, type Styler } from "./format.ts";
import type { PlanPictures } from "./plan-pictures.ts";
import type { Screen } from "./screen.ts";
import { decodeTerminalThreadId, encodeTerminalThreadId } from "./thread-id.ts";

/** What the terminal port prints with, and what it remembers of the one lesson it shows. */
export interface TerminalPort extends PlatformPort<string> {
	/** The lesson this screen shows (set by openThread, or by a resume). */
	threadId: string;
	/** Question cards printed in this run (a resume prints the still-open ones again). */
	readonly shown: Set<string>;
	/** Questions the prober asked so far (continues after a resume). */
	probeQuestions: number;
	/** The lesson's language (its progress lines and outline); set by the playground. */
	locale: Locale;
	/** Print a question (its progress line, then the card) unless this run printed it already. */
	showQuestion(card: Card): void;
}

/** Options of the terminal port. */
export interface TerminalPortOptions {
	screen: Screen;
	s: Styler;
	/** A person at a picker: the picker shows the choices, so cards leave them out. */
	interactive: boolean;
	pictures: (threadId: string) => PlanPictures;
	/** The plan of the picture being posted (recorded by the renderer wrapper, see planRecorder). */
	lastPlan: () => PlanState | undefined;
	/** How the learner runs this program (default "learnharness"): the closing lines name its commands. */
	command?: string;
}

/** A plan as last drawn: the tree and what was derived from the transcript. */
type PlanState = { tree: PlanTree; statuses: DerivedPlanStatuses; mastery?: PlanMastery };

/** A renderer that remembers the plan it drew last (the terminal prints the outline from it) and draws an outline alone without a real one. */
export function planRecorder(renderer: PlanRenderer | undefined) {
	let last: PlanState | undefined;
	const recorder: Pick<PlanRenderer, "renderPlan"> = {
		async renderPlan(tree, statuses, mastery, locale): Promise<PlanPicture> {
			last = { tree, statuses, ...(mastery ? { mastery } : {}) };
			// In the lesson's language: the picture's legend too, not only the lines printed beside it.
			const outline = planOutline(tree, statuses, mastery, locale);
			const bare: PlanPicture = { key: "", caption: planCaption(tree, statuses, mastery, locale), outline };
			if (!renderer) return bare;
			return renderer.renderPlan(tree, statuses, mastery, locale).catch((error: unknown) => ({
				...bare,
				error: error instanceof Error ? error.message : String(error),
			}));
		},
	};
	return { recorder, last: () => last };
}

/** The name a terminal learner goes by: the account running the playground ("learner" when the system cannot say). */
export function terminalUserName(): string {
	try {
		const name = userInfo().username.trim();
		return name !== "" ? name.slice(0, 64) : "learner";
	} catch {
		return "learner";
	}
}

/** Create the terminal port. */
export function createTerminalPort(o: TerminalPortOptions): TerminalPort {
	const print = (text: string) => o.screen.print(text);
	let shownVersion: number | undefined;
	/** The shaky nodes of the map shown last (ids, one a line). */
	let shownShaky = "";
	const failures = new Set<string>();
	let current: PlanState | undefined;

	const progressLine = (): string | undefined => {
		const locale = port.locale;
		if (!current)
			return port.probeQuestions > 0 ? t(locale, "play.gettingToKnow", { count: port.probeQuestions }) : undefined;
		const { tree, statuses } = current;
		const index = tree.nodes.findIndex((n) => n.id === statuses.current);
		if (index < 0) return t(locale, "play.mapSteps", { steps: tn(locale, "count.steps", tree.nodes.length) });
		const title = tree.nodes[index]?.title ?? "";
		return t(locale, "play.step", { index: index + 1, total: tree.nodes.length, title });
	};

	const printPlan = (plan: PlanState, picture: PlanPicture | undefined) => {
		current = plan;
		// A new map is shown whole, and so is one where a node turned shaky (the caption cannot show which);
		// otherwise moving on in it shows where you are now.
		const shaky = Object.keys(plan.mastery ?? {})
			.filter((id) => plan.mastery?.[id] === "shaky")
			.join("\n");
		const compact = shownVersion === plan.tree.version && shaky === shownShaky;
		shownVersion = plan.tree.version;
		shownShaky = shaky;
		let text = compact
			? planCaption(plan.tree, plan.statuses, plan.mastery, port.locale)
			: formatPlanOutline(planOutline(plan.tree, plan.statuses, plan.mastery, port.locale), o.s);
		if (picture?.png)
			text += `\n${t(port.locale, "play.picture", { path: o.pictures(port.threadId).save(picture.png) })}`;
		else if (picture?.error && !failures.has(picture.error)) {
			failures.add(picture.error);
			text += `\n${t(port.locale, "play.noPicture", { error: picture.error })}`;
		}
		print(text);
	};

	const port: TerminalPort = {
		name: "terminal",
		limits: { formPrecheckMs: 1_000 },
		// No reminder reaches a terminal: its closing message names the review command instead.
		style: {
			startHint: `\`${o.command ?? "learnharness"} playground\``,
			reviewHint: `\`${o.command ?? "learnharness"} review\``,
			reminders: false,
		},
		threadId: "",
		locale: DEFAULT_LOCALE,
		shown: new Set(),
		probeQuestions: 0,
		encodeThreadId: encodeTerminalThreadId,
		decodeThreadId: decodeTerminalThreadId,
		showQuestion(card) {
			if (card.kind !== "question" || port.shown.has(card.toolCallId)) return;
			port.shown.add(card.toolCallId);
			// The tutor's lead-in reads as its own block, before the question's progress line.
			if (card.lead) print(formatMarkdown(card.lead, o.s));
			const progress = progressLine();
			if (progress) print(o.s("dim", progress));
			print(formatCard(card, o.s, { choices: !o.interactive }));
		},
		async postCard(threadId, card) {
			if (threadId !== port.threadId) return [];
			if (card.kind === "question") {
				if (!current && !port.shown.has(card.toolCallId)) port.probeQuestions++;
				port.showQuestion(card);
				return [card.toolCallId];
			}
			if (card.kind === "explain" && card.lead) print(formatMarkdown(card.lead, o.s));
			print(formatCard(card, o.s));
			return [`${card.kind}`];
		},
		async editCard(threadId, _ids, card) {
			if (threadId === port.threadId) print(formatCard(card, o.s));
			return true;
		},
		async postPicture(threadId, picture) {
			const plan = o.lastPlan();
			if (threadId !== port.threadId || !plan) return false;
			printPlan(plan, picture);
			return true;
		},
		typing(threadId, active) {
			if (threadId !== port.threadId) return;
			if (active) o.screen.showStatus(t(port.locale, "play.thinking"), (text) => o.s("dim", text));
			else o.screen.clearStatus();
		},
		async openThread(_place, intro) {
			port.threadId = encodeTerminalThreadId(randomBytes(5).toString("hex"));
			print(o.s("bold", t(port.locale, "play.lesson", { topic: intro.topic })));
			return { ok: true, threadId: port.threadId };
		},
		async closeThread() {},
	};
	return port;
}
