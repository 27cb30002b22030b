/**
 * `learnharness progress`, `learnharness review` and `learnharness forget-me` in the
 * terminal: the same profile flows as `/lesson progress`, `/lesson review` and `/lesson
 * forget-me` on Discord and Slack (src/adapters/lesson/profile-flows.ts, review.ts),
 * through the terminal port, for the terminal's learner. Progress prints its summary (the
 * picture is saved as a PNG when one was drawn). Review asks the due questions one at a
 * time, one typed answer a line, each judged (the judge, then the grader for what it
 * leaves open) and rescheduled, then the closing line; bounded: at most REVIEW_MAX_ITEMS
 * answers are graded, and twice as many lines read. Forget-me deletes only when told `yes`
 * (a command line has no confirm button: without it, it says what would go and how).
 */

import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Writable } from "node:stream";
import { createMemoryStateStore, type StateStore, stateKeys } from "../../agent/index.ts";
import type { Participant } from "../../core/contracts/events.ts";
import { type Logger, silentLogger } from "../../core/contracts/logger.ts";
import type { Tutor } from "../../core/contracts/tutor.ts";
import { DEFAULT_LOCALE, type Locale, t } from "../../i18n/index.ts";
import { createLessonController, type LessonController } from "../lesson/controller.ts";
import type { Actor } from "../lesson/port.ts";
import type { LearnerServices } from "../lesson/profile-flows.ts";
import { REVIEW_MAX_ITEMS } from "../lesson/review.ts";
import { createStyler, formatMarkdown } from "./format.ts";
import type { AnswerSource } from "./input.ts";
import { PlanPictures } from "./plan-pictures.ts";
import { createTerminalPort, terminalUserName } from "./port.ts";
import { Screen } from "./screen.ts";

/** Options of the terminal's profile commands. */
export interface TerminalProfileOptions {
	tutor: Tutor;
	learning: LearnerServices;
	output: Writable;
	color?: boolean;
	/** The learner (default: the playground's). */
	learner?: Participant;
	/** The language of what is printed (default English). */
	locale?: Locale;
	/** How the learner runs this program (default "learnharness"), for the hint forget-me prints. */
	command?: string;
	/** Where the progress picture is saved (default ./data). */
	dataDir?: string;
	logger?: Logger;
}

/** The terminal's community: its lessons are keyed by learner alone (`terminal:<learner>`). */
const COMMUNITY = "terminal";

/** What one profile command runs on: a terminal controller, its state, the actor and the printer. */
interface Flows {
	controller: LessonController;
	state: StateStore;
	actor: Actor;
	print: (text: string) => void;
}

/** Runs `run` on a terminal controller for one profile command; stopped after. */
async function withFlows<T>(o: TerminalProfileOptions, run: (f: Flows) => Promise<T>): Promise<T> {
	const s = createStyler(o.color ?? false);
	const screen = new Screen(o.output, false);
	const port = createTerminalPort({
		screen,
		s,
		interactive: false,
		pictures: (threadId) => new PlanPictures(join(o.dataDir ?? "data", "plans"), threadId),
		lastPlan: () => undefined,
		...(o.command ? { command: o.command } : {}),
	});
	const state = createMemoryStateStore();
	const controller = createLessonController({
		tutor: o.tutor,
		renderer: { renderPlan: async () => ({ key: "", caption: "", outline: "" }) },
		port,
		logger: o.logger ?? silentLogger,
		state,
		...o.learning,
	});
	const print = (text: string) => screen.print(formatMarkdown(text, s));
	const actor: Actor = {
		by: o.learner ?? { id: "terminal-learner", name: terminalUserName() },
		...(o.locale ? { locale: o.locale } : {}),
		isAdmin: async () => true,
		notify: async (text) => print(s("yellow", text)),
	};
	try {
		return await run({ controller, state, actor, print });
	} finally {
		await controller.stop({ waitMs: 0 });
	}
}

/** `learnharness progress`: the summary per topic; the picture's path when one was drawn. Resolves the PNG's path. */
export function runTerminalProgress(o: TerminalProfileOptions): Promise<{ picture?: string }> {
	return withFlows(o, async ({ controller, actor, print }) => {
		const shown = await controller.profile?.progress(actor, COMMUNITY);
		if (!shown) return {};
		print(shown.text);
		const png = shown.picture?.png;
		if (!png) return {};
		const dir = o.dataDir ?? "data";
		mkdirSync(dir, { recursive: true });
		const path = join(dir, "progress.png");
		writeFileSync(path, png);
		print(t(o.locale ?? DEFAULT_LOCALE, "play.progressPicture", { path }));
		return { picture: path };
	});
}

/** `learnharness forget-me [--yes]`: deletes what is stored of the learner when `yes`; otherwise says what would go. */
export function runTerminalForget(o: TerminalProfileOptions & { yes: boolean }): Promise<{ deleted: boolean }> {
	return withFlows(o, async ({ controller, actor, print }) => {
		const flows = controller.profile;
		if (!flows) return { deleted: false };
		const locale = o.locale ?? DEFAULT_LOCALE;
		if (!o.yes) {
			const command = `\`${o.command ?? "learnharness"} forget-me --yes\``;
			print(`${t(locale, "profile.forgetQuestion")} ${t(locale, "play.forgetConfirm", { command })}`);
			return { deleted: false };
		}
		print(await flows.forget(actor, COMMUNITY));
		return { deleted: true };
	});
}

/** `learnharness review`: resolves with how many answers were graded. Never rejects on input trouble (it ends the review). */
export function runTerminalReview(o: TerminalProfileOptions & { source: AnswerSource }): Promise<{ answered: number }> {
	return withFlows(o, async ({ controller, state, actor }) => {
		let answered = 0;
		try {
			const started = await controller.profile?.review.start(actor, { community: COMMUNITY, channelId: COMMUNITY });
			if (!started || !("threadId" in started)) return { answered };
			const threadId = started.threadId;
			// Bounded: an empty line is asked again (the review said why), at most as often as there are questions.
			for (let reads = 0; reads < REVIEW_MAX_ITEMS * 2 && answered < REVIEW_MAX_ITEMS; reads++) {
				const review = (await state.get(stateKeys.review(threadId))) as { done?: boolean } | undefined;
				if (!review || review.done) break;
				const answer = await o.source.text(t(o.locale ?? DEFAULT_LOCALE, "play.yourAnswer"));
				if (typeof answer !== "string") break;
				const result = await controller.typed(threadId, actor.by, answer);
				if (!result.ok && result.code === "invalid-answer") continue;
				if (!result.ok) {
					await actor.notify(result.message);
					break;
				}
				answered++;
			}
			return { answered };
		} finally {
			o.source.close();
		}
	});
}
