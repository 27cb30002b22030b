/**
 * `learnharness progress` and `learnharness forget-me` in the terminal: the same
 * profile flows as `/lesson progress` and `/lesson forget-me` on Discord and
 * Slack (src/adapters/lesson/profile-flows.ts), through the terminal port, for
 * the terminal's learner. Progress prints its summary (the picture is saved as
 * a PNG when one was drawn); forget-me deletes only when told `yes` (a command
 * line has no confirm button: without it, it says what would go and how).
 */

import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Writable } from "node:stream";
import { createMemoryStateStore } from "../../agent/index.ts";
import type { Participant } from "../../core/contracts/events.ts";
import { type Logger, silentLogger } from "../../core/contracts/logger.ts";
import type { Tutor } from "../../core/contracts/tutor.ts";
import { createLessonController, type LessonController } from "../lesson/controller.ts";
import { DEFAULT_LOCALE, type Locale, t } from "../lesson/i18n.ts";
import type { Actor } from "../lesson/port.ts";
import type { LearnerServices } from "../lesson/profile-flows.ts";
import { createStyler, formatMarkdown } from "./format.ts";
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

/** A terminal controller for one profile command, the actor, the printer; stopped after `run`. */
async function withFlows<T>(
	o: TerminalProfileOptions,
	run: (c: LessonController, actor: Actor, print: (text: string) => void) => Promise<T>,
): Promise<T> {
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
	const controller = createLessonController({
		tutor: o.tutor,
		renderer: { renderPlan: async () => ({ key: "", caption: "", outline: "" }) },
		port,
		logger: o.logger ?? silentLogger,
		state: createMemoryStateStore(),
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
		return await run(controller, actor, print);
	} finally {
		await controller.stop({ waitMs: 0 });
	}
}

/** `learnharness progress`: the summary per topic; the picture's path when one was drawn. Resolves the PNG's path. */
export function runTerminalProgress(o: TerminalProfileOptions): Promise<{ picture?: string }> {
	return withFlows(o, async (controller, actor, print) => {
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
	return withFlows(o, async (controller, actor, print) => {
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
