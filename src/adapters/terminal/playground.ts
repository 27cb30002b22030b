/**
 * The terminal playground: a whole lesson through the real engine and the
 * same lesson controller and cards as the chat platforms (the terminal is one
 * more platform port, see port.ts). The controller prints what the tutor
 * says; when the tutor is idle the learner answers the open question (read
 * from the tutor's summary, so a resumed lesson shows it again) or types a
 * message.
 */

import type { Writable } from "node:stream";
import { createMemoryStateStore } from "../../agent/index.ts";
import type { HandleResult, LessonMode, Participant } from "../../core/contracts/events.ts";
import { type Logger, silentLogger } from "../../core/contracts/logger.ts";
import type { MaterialUpload, PendingQuestion, SessionSummary, Tutor } from "../../core/contracts/tutor.ts";
import { DEFAULT_LOCALE, type Locale, t } from "../../i18n/index.ts";
import { cardFromEvent, type PlanRenderer, type QuestionCard } from "../../render/index.ts";
import { createLessonController, type LessonController } from "../lesson/controller.ts";
import { MIN_VOTE_SECONDS } from "../lesson/lesson-rules.ts";
import type { Actor } from "../lesson/port.ts";
import type { LearnerServices } from "../lesson/profile-flows.ts";
import { createStyler, type Styler } from "./format.ts";
import type { Answer, AnswerSource } from "./input.ts";
import { PlanPictures } from "./plan-pictures.ts";
import { createTerminalPort, planRecorder, type TerminalPort, terminalUserName } from "./port.ts";
import { Screen } from "./screen.ts";
import { decodeTerminalThreadId } from "./thread-id.ts";

/** Options of a playground run. */
export interface PlaygroundOptions {
	tutor: Tutor;
	/** Draws plan pictures; without one (or when it fails) the outline is shown alone. */
	renderer?: PlanRenderer;
	source: AnswerSource;
	output: Writable;
	/** ANSI styles (a terminal) or plain text (a pipe). */
	color?: boolean;
	/** Whether a person is typing (affects the exit code when input ends). */
	interactive?: boolean;
	/** Resume this session (`terminal:<id>` or `<id>`) instead of starting one. */
	resume?: string;
	topic?: string;
	mode?: LessonMode;
	/** The lesson's language (a new lesson; a resumed one keeps its own). Default English. */
	language?: Locale;
	/** A new lesson's material (a PDF the command line read: `--material FILE`); docs/material.md. */
	material?: MaterialUpload;
	learner?: Participant;
	/** Where plan pictures go (default ./data/plans). */
	plansDir?: string;
	/** A line printed first (model, store); a function gets the lesson's language (a resumed lesson's own). */
	banner?: string | ((locale: Locale) => string);
	/** How the learner runs this command, for the resume hint (default "learnharness"). */
	command?: string;
	/** Stops the run as a pause (Ctrl+C or SIGTERM while the tutor thinks): the resume hint is printed. */
	signal?: AbortSignal;
	/** Longest wait for the tutor between two learner actions (default 10 minutes). */
	maxWaitMs?: number;
	logger?: Logger;
	/** Learner profiles: the lesson is recorded when it ends (and a later lesson's prober sees it). */
	learning?: LearnerServices;
}

/** How a run ended. */
export interface PlaygroundResult {
	sessionId?: string;
	outcome: "ended" | "paused" | "input-ended" | "failed";
	exitCode: number;
	/** Plan pictures written, in order. */
	pictures: string[];
}

/** A phase as the playground names it. */
const phaseWords = (phase: SessionSummary["phase"], locale: Locale): string =>
	t(locale, phase === "probe" ? "play.phase.probe" : phase === "teach" ? "phase.teach" : "phase.ended");

/** Resolves when the signal aborts (never, without one). */
const interrupted = (signal: AbortSignal | undefined): Promise<"interrupted"> =>
	new Promise((resolve) => {
		if (signal?.aborted) resolve("interrupted");
		else signal?.addEventListener("abort", () => resolve("interrupted"), { once: true });
	});

/** Runs a lesson in the terminal until it ends, the learner pauses, or input ends. */
export async function runPlayground(options: PlaygroundOptions): Promise<PlaygroundResult> {
	const run = new PlaygroundRun(options);
	try {
		return await run.run();
	} finally {
		await run.dispose();
	}
}

class PlaygroundRun {
	private readonly s: Styler;
	private readonly screen: Screen;
	private readonly interrupted: Promise<"interrupted">;
	private readonly logger: Logger;
	private readonly learner: Participant;
	private readonly port: TerminalPort;
	private readonly controller: LessonController;
	private readonly actor: Actor;
	private pictures: PlanPictures | undefined;
	private readonly recorder: ReturnType<typeof planRecorder>;
	/** The lesson's language: the option for a new lesson, the stored one for a resumed lesson. */
	private locale: Locale;

	constructor(private readonly o: PlaygroundOptions) {
		this.s = createStyler(o.color ?? false);
		this.screen = new Screen(o.output, o.interactive === true && (o.output as { isTTY?: boolean }).isTTY === true);
		this.interrupted = interrupted(o.signal);
		this.logger = (o.logger ?? silentLogger).child({ component: "playground" });
		// Named by the account that runs it ("Lesson ended by ada."), not an English "you" inside a German card.
		this.learner = o.learner ?? { id: "terminal-learner", name: terminalUserName() };
		this.recorder = planRecorder(o.renderer);
		this.locale = o.language ?? DEFAULT_LOCALE;
		this.port = createTerminalPort({
			screen: this.screen,
			s: this.s,
			interactive: o.interactive === true,
			pictures: (threadId) => {
				this.pictures ??= new PlanPictures(o.plansDir ?? "data/plans", threadId);
				return this.pictures;
			},
			lastPlan: this.recorder.last,
			...(o.command ? { command: o.command } : {}),
		});
		this.controller = createLessonController({
			tutor: o.tutor,
			renderer: this.recorder.recorder,
			port: this.port,
			logger: this.logger,
			state: createMemoryStateStore(),
			// One person at a terminal: a group vote (docs/group-lessons.md) closes on its shortest timer.
			ruleDefaults: { voteSeconds: MIN_VOTE_SECONDS },
			// One learner at a terminal: the map is worth waiting for (chat threads wait 4 s, then post the outline).
			pictureWaitMs: 60_000,
			...(o.learning ?? {}),
		});
		this.actor = {
			by: this.learner,
			// The person at the terminal runs their own lessons: no daily limit applies.
			isAdmin: async () => true,
			notify: async (text) => this.print(this.s("yellow", text)),
		};
	}

	private get sessionId(): string {
		return this.port.threadId;
	}

	async run(): Promise<PlaygroundResult> {
		this.controller.attach();
		const started = this.o.resume ? await this.resume(this.o.resume) : await this.start();
		const result = started ?? (await this.loop());
		await this.printUsage();
		return result;
	}

	/** The lesson's tokens so far, printed as the run ends (nothing when no lesson started or the store fails). */
	private async printUsage(): Promise<void> {
		const summary = await this.o.tutor.getSession(this.sessionId).catch(() => undefined);
		if (!summary) return;
		const u = summary.usage;
		const words = { input: u.inputTokens, cached: u.cachedInputTokens, output: u.outputTokens };
		this.print(this.s("dim", t(this.locale, "play.tokens", words)));
	}

	async dispose(): Promise<void> {
		this.screen.clearStatus();
		this.o.source.close();
		// A paused or finished run: what the tutor still says is for the next run (it shows open questions again).
		await this.controller.stop({ waitMs: 0 });
	}

	/** A learner's input, or "interrupted" when the run is stopped meanwhile. */
	private input<T>(read: () => Promise<T>): Promise<T | "interrupted"> {
		this.screen.clearStatus();
		return Promise.race([read(), this.interrupted]);
	}

	private result(outcome: PlaygroundResult["outcome"], exitCode: number): PlaygroundResult {
		return { sessionId: this.sessionId, outcome, exitCode, pictures: this.pictures?.written ?? [] };
	}

	/** The banner, in the lesson's language. */
	private printBanner(): void {
		const banner = typeof this.o.banner === "function" ? this.o.banner(this.locale) : this.o.banner;
		if (banner) this.print(this.s("dim", banner));
	}

	/** Starts a new lesson; returns a result only when it could not start. */
	private async start(): Promise<PlaygroundResult | undefined> {
		this.printBanner();
		let topic = this.o.topic?.trim();
		if (!topic) {
			if (!this.o.interactive) this.print(t(this.locale, "play.topicScripted"));
			const answer = await this.input<Answer<number | string>>(() =>
				this.o.source.text(t(this.locale, "play.topic"), { locale: this.locale }),
			);
			if (answer === "interrupted" || (typeof answer === "object" && answer.command === "quit"))
				return this.result("paused", 0);
			if (typeof answer !== "string") {
				if (!this.o.interactive) this.print(t(this.locale, "play.stdinEnded", { cli: this.cli }));
				return this.result("input-ended", this.o.interactive ? 0 : 1);
			}
			topic = answer;
		}
		this.port.locale = this.locale;
		const started = await this.controller.start(
			this.actor,
			{ community: "terminal", channelId: "terminal" },
			{
				topic,
				mode: this.o.mode ?? "solo",
				learner: this.learner,
				language: this.locale,
				...(this.o.material ? { material: this.o.material } : {}),
			},
		);
		if (!started.ok) return this.result("failed", 1);
		this.printSessionLine();
		// What the lesson teaches from, and what in it was neutralised (scripts ignored, instructions quoted).
		if (started.material) {
			const { name, pages, warnings, unit } = started.material;
			const key = unit === "part" ? "command.materialParts" : "command.material";
			this.print(t(this.locale, key, { name, pages: String(pages) }));
			for (const warning of warnings) this.print(this.s("dim", warning));
		}
		return undefined;
	}

	private async resume(raw: string): Promise<PlaygroundResult | undefined> {
		this.port.threadId = raw.startsWith("terminal:") ? raw : `terminal:${raw}`;
		const summary =
			decodeTerminalThreadId(this.sessionId) !== undefined ? await this.o.tutor.getSession(this.sessionId) : undefined;
		// A resumed lesson keeps the language it started in: the banner says so too.
		if (summary) this.locale = summary.language ?? DEFAULT_LOCALE;
		this.printBanner();
		if (!summary) {
			this.print(this.s("red", t(this.locale, "play.noSuch", { session: this.sessionId, cli: this.cli })));
			return this.result("failed", 1);
		}
		this.port.locale = this.locale;
		const phase = phaseWords(summary.phase, this.locale);
		this.print(this.s("bold", t(this.locale, "play.resuming", { topic: summary.topic, phase })));
		if (summary.phase === "ended") {
			this.print(this.s("yellow", t(this.locale, "status.ended")));
			return this.result("ended", 0);
		}
		this.printSessionLine();
		this.port.probeQuestions = summary.probeQuestions;
		if (summary.plan) {
			const picture = await this.recorder.recorder.renderPlan(
				summary.plan.tree,
				summary.plan.statuses,
				summary.plan.mastery,
				this.locale,
			);
			await this.port.postPicture(this.sessionId, picture);
		}
		return undefined;
	}

	private async loop(): Promise<PlaygroundResult> {
		for (;;) {
			const waited = await this.waitForIdle();
			if (waited === "interrupted") return this.paused();
			const summary = await this.o.tutor.getSession(this.sessionId);
			if (!summary || summary.phase === "ended") {
				this.print(this.s("dim", t(this.locale, "play.over", { session: this.sessionId })));
				this.print(this.s("dim", this.betweenLessons()));
				return this.result("ended", 0);
			}
			const [question] = summary.pending;
			const outcome = question ? await this.answer(summary, question) : await this.message();
			if (outcome) return outcome;
		}
	}

	/** Waits until the tutor is idle and what it said is on the screen ("interrupted" when stopped meanwhile). */
	private async waitForIdle(): Promise<"idle" | "interrupted"> {
		const maxWaitMs = this.o.maxWaitMs ?? 600_000;
		let timer: NodeJS.Timeout | undefined;
		const timeout = new Promise<"timeout">((resolve) => {
			timer = setTimeout(() => resolve("timeout"), maxWaitMs);
		});
		const idle = this.o.tutor.idle(this.sessionId).then(() => "idle" as const);
		const first = await Promise.race([idle, timeout, this.interrupted]);
		clearTimeout(timer);
		if (first === "interrupted") return first;
		if (first === "timeout") this.print(this.s("yellow", t(this.locale, "play.slow")));
		// Events of a finished turn may still be on their way to the screen: let them land.
		await new Promise((resolve) => setImmediate(resolve));
		await this.controller.flush();
		return "idle";
	}

	private async answer(summary: SessionSummary, question: PendingQuestion): Promise<PlaygroundResult | undefined> {
		const event = {
			type: question.kind,
			sessionId: summary.sessionId,
			toolCallId: question.toolCallId,
			input: question.input,
		};
		const card = question.input
			? (cardFromEvent(event as Parameters<typeof cardFromEvent>[0], this.locale) as QuestionCard)
			: undefined;
		if (!card) {
			this.print(this.s("yellow", t(this.locale, "play.oldQuestion")));
			return this.message();
		}
		// A question this run has not shown (a resumed lesson's open one) is shown again first.
		this.port.showQuestion(card);
		const free = card.choices.length === 0;
		const quiz = question.kind === "quiz";
		const answer = await this.input<Answer<number | string>>(() =>
			free
				? this.o.source.text(t(this.locale, "play.yourAnswer"), { answer: true, help: quiz, locale: this.locale })
				: this.o.source.choose(card),
		);
		if (answer === "interrupted") return this.paused();
		if (answer === undefined) return this.inputEnded();
		if (typeof answer === "object" && answer.command === "help") {
			if (!quiz) return void (await this.actor.notify(t(this.locale, "engine.helpQuizOnly")));
			return this.refused(await this.controller.help(this.actor, this.sessionId, question.toolCallId, answer.kind));
		}
		if (typeof answer === "object")
			return answer.command === "say" ? this.say(answer.text) : this.command(answer.command);
		// Words typed at an open question go as in a chat thread: the lesson reads them (an answer, a question, a request).
		if (typeof answer === "string") return this.say(answer);
		return this.refused(await this.controller.choose(this.actor, this.sessionId, question.toolCallId, answer));
	}

	/** Words typed in the lesson, like a message in a chat thread. */
	private async say(text: string): Promise<PlaygroundResult | undefined> {
		const verdict = await this.controller.typed(this.sessionId, this.learner, text);
		if (!verdict.ok) await this.actor.notify(verdict.message);
		return this.refused(verdict);
	}

	private async message(): Promise<PlaygroundResult | undefined> {
		const text = await this.input(() => this.o.source.text(t(this.locale, "play.you"), { locale: this.locale }));
		if (text === "interrupted") return this.paused();
		if (text === undefined) return this.inputEnded();
		if (typeof text === "object") {
			if (text.command === "help") return undefined;
			return text.command === "say" ? this.say(text.text) : this.command(text.command);
		}
		return this.say(text);
	}

	/** The run ends when the lesson is gone (the refusal was already told). */
	private refused(verdict: HandleResult): PlaygroundResult | undefined {
		if (verdict.ok) return undefined;
		return verdict.code === "ended" || verdict.code === "unknown-session" ? this.result("ended", 0) : undefined;
	}

	private async command(command: "quit" | "end"): Promise<PlaygroundResult | undefined> {
		if (command === "quit") return this.paused();
		await this.controller.end({ ...this.actor, notify: async () => {} }, this.sessionId);
		return undefined;
	}

	private get cli(): string {
		return this.o.command ?? "learnharness";
	}

	/** The end line: what there is to do between lessons (review, progress, forget-me; reminders on chat). */
	private betweenLessons(): string {
		const command = (word: string) => `${this.cli} ${word}`;
		return t(this.locale, "play.between", {
			review: command("review"),
			progress: command("progress"),
			forget: command("forget-me"),
		});
	}

	/** The resume command on a line of its own (indented: never wrapped, easy to copy). */
	private resumeHint(): string {
		return `\n    ${this.s("bold", `${this.cli} playground --resume ${this.sessionId}`)}`;
	}

	private paused(): PlaygroundResult {
		this.print(t(this.locale, "play.paused", { hint: this.resumeHint() }));
		return this.result("paused", 0);
	}

	private inputEnded(): PlaygroundResult {
		this.print(t(this.locale, "play.inputEnded", { hint: this.resumeHint() }));
		return this.result("input-ended", this.o.interactive ? 0 : 1);
	}

	private printSessionLine(): void {
		const how = t(this.locale, this.o.interactive ? "play.howTty" : "play.howPipe");
		this.print(
			this.s(
				"dim",
				`${t(this.locale, "play.session", { session: this.sessionId, how })} ${t(this.locale, "play.helpCommands")}`,
			),
		);
	}

	private print(text: string): void {
		this.screen.print(text);
	}
}
