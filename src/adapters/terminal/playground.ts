/**
 * The terminal playground: a whole lesson through the real engine and the
 * same cards as the chat platforms. Tutor events are shown as they come; when
 * the tutor is idle the learner answers the open question (or types a
 * message). Open questions are kept in the session's extra metadata, so a
 * resumed lesson can show them again.
 */

import { randomBytes } from "node:crypto";
import type { Writable } from "node:stream";
import type { HandleResult, LearnerEvent, LessonMode, Participant, TutorEvent } from "../../core/contracts/events.ts";
import { type Logger, silentLogger } from "../../core/contracts/logger.ts";
import type { DerivedPlanStatuses, PlanTree } from "../../core/contracts/plan.ts";
import type { SessionSummary, Tutor } from "../../core/contracts/tutor.ts";
import { cardFromEvent, type PlanRenderer, type QuestionCard } from "../../render/index.ts";
import { createStyler, formatCard, type Styler } from "./format.ts";
import type { Answer, AnswerSource } from "./input.ts";
import { PlanPictures, renderPlanForTerminal } from "./plan-pictures.ts";
import { LessonProgress, type QuestionEvent } from "./progress.ts";
import { Screen } from "./screen.ts";

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
	learner?: Participant;
	/** Where plan pictures go (default ./data/plans). */
	plansDir?: string;
	/** A line printed first (model, store). */
	banner?: string;
	/** How the learner runs this command, for the resume hint (default "learnharness"). */
	command?: string;
	/** Stops the run as a pause (Ctrl+C or SIGTERM while the tutor thinks): the resume hint is printed. */
	signal?: AbortSignal;
	/** Longest wait for the tutor between two learner actions (default 10 minutes). */
	maxWaitMs?: number;
	logger?: Logger;
}

/** How a run ended. */
export interface PlaygroundResult {
	sessionId?: string;
	outcome: "ended" | "paused" | "input-ended" | "failed";
	exitCode: number;
	/** Plan pictures written, in order. */
	pictures: string[];
}

const PHASE_WORDS: Record<SessionSummary["phase"], string> = {
	probe: "getting to know you",
	teach: "teaching",
	ended: "ended",
};

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
		run.dispose();
	}
}

class PlaygroundRun {
	private readonly s: Styler;
	private readonly screen: Screen;
	private readonly interrupted: Promise<"interrupted">;
	private readonly logger: Logger;
	private readonly learner: Participant;
	private readonly queue: TutorEvent[] = [];
	private wake: (() => void) | undefined;
	private unsubscribe: (() => void) | undefined;
	private sessionId = "";
	private progress: LessonProgress | undefined;
	private ended = false;
	private pictures: PlanPictures | undefined;

	constructor(private readonly o: PlaygroundOptions) {
		this.s = createStyler(o.color ?? false);
		this.screen = new Screen(o.output, o.interactive === true && (o.output as { isTTY?: boolean }).isTTY === true);
		this.interrupted = interrupted(o.signal);
		this.logger = (o.logger ?? silentLogger).child({ component: "playground" });
		this.learner = o.learner ?? { id: "terminal-learner", name: "you" };
	}

	async run(): Promise<PlaygroundResult> {
		if (this.o.banner) this.print(this.s("dim", this.o.banner));
		const started = this.o.resume ? await this.resume(this.o.resume) : await this.start();
		if (started) return started;
		return this.loop();
	}

	dispose(): void {
		this.screen.clearStatus();
		this.unsubscribe?.();
		this.o.source.close();
	}

	/** A learner's input, or "interrupted" when the run is stopped meanwhile. */
	private input<T>(read: () => Promise<T>): Promise<T | "interrupted"> {
		this.screen.clearStatus();
		return Promise.race([read(), this.interrupted]);
	}

	private result(outcome: PlaygroundResult["outcome"], exitCode: number): PlaygroundResult {
		return { sessionId: this.sessionId, outcome, exitCode, pictures: this.pictures?.written ?? [] };
	}

	private subscribe(): void {
		this.unsubscribe = this.o.tutor.subscribe((event) => {
			if (event.sessionId !== this.sessionId) return;
			this.queue.push(event);
			this.wake?.();
		});
	}

	/** Starts a new lesson; returns a result only when it could not start. */
	private async start(): Promise<PlaygroundResult | undefined> {
		let topic = this.o.topic?.trim();
		if (!topic) {
			if (!this.o.interactive) this.print("What would you like to learn? (first line of input)");
			const answer = await this.input<Answer<number | string>>(() =>
				this.o.source.text("What would you like to learn?"),
			);
			if (answer === "interrupted" || (typeof answer === "object" && answer.command === "quit"))
				return this.result("paused", 0);
			if (typeof answer !== "string") {
				if (!this.o.interactive)
					this.print(
						"Standard input ended before a topic arrived, so there is no lesson to run.\n" +
							`Run \`${this.cli} playground\` in a terminal to take a lesson, or script one: the topic on the\n` +
							"first line (or --topic), then one answer a line.",
					);
				return this.result("input-ended", this.o.interactive ? 0 : 1);
			}
			topic = answer;
		}
		this.sessionId = `terminal:${randomBytes(5).toString("hex")}`;
		this.progress = new LessonProgress(this.o.tutor, this.sessionId, this.logger);
		this.pictures = new PlanPictures(this.o.plansDir ?? "data/plans", this.sessionId);
		this.subscribe();
		const started = await this.o.tutor.startLesson({
			sessionId: this.sessionId,
			topic,
			learner: this.learner,
			mode: this.o.mode ?? "solo",
		});
		if (!started.ok) {
			this.print(this.s("red", `Could not start the lesson: ${started.message}`));
			return this.result("failed", 1);
		}
		this.print(this.s("bold", `Lesson: ${topic}`));
		this.printSessionLine();
		return undefined;
	}

	private async resume(raw: string): Promise<PlaygroundResult | undefined> {
		this.sessionId = raw.startsWith("terminal:") ? raw : `terminal:${raw}`;
		const summary = await this.o.tutor.getSession(this.sessionId);
		if (!summary) {
			this.print(this.s("red", `No lesson ${this.sessionId} in this store. Start one with: ${this.cli} playground`));
			return this.result("failed", 1);
		}
		this.pictures = new PlanPictures(this.o.plansDir ?? "data/plans", this.sessionId);
		const progress = new LessonProgress(this.o.tutor, this.sessionId, this.logger);
		this.progress = progress;
		this.subscribe();
		this.print(this.s("bold", `Resuming: ${summary.topic} (${PHASE_WORDS[summary.phase]})`));
		if (summary.phase === "ended") {
			this.print(this.s("yellow", "This lesson has ended."));
			return this.result("ended", 0);
		}
		this.printSessionLine();
		const lost = progress.restore(summary);
		if (progress.plan) await this.showPlan(progress.plan.tree, progress.plan.statuses, false);
		if (lost > 0)
			this.print(this.s("yellow", "A question from before cannot be shown here; type a message to carry on."));
		for (const question of progress.open.values()) this.showQuestion(question);
		return undefined;
	}

	private async loop(): Promise<PlaygroundResult> {
		for (;;) {
			const event = this.queue.shift();
			if (event) {
				await this.show(event);
				if (this.ended) return this.result("ended", 0);
				continue;
			}
			const waited = await this.waitForEventOrIdle();
			if (waited === "interrupted") return this.paused();
			if (waited) continue;
			const [question] = this.progress?.open.values() ?? [];
			const outcome = question ? await this.answer(question) : await this.message();
			if (outcome) return outcome;
		}
	}

	/** True when an event arrived; false when the tutor is idle with nothing queued (or the wait ran out). */
	private async waitForEventOrIdle(): Promise<boolean | "interrupted"> {
		const maxWaitMs = this.o.maxWaitMs ?? 600_000;
		let timer: NodeJS.Timeout | undefined;
		const arrived = new Promise<"event">((resolve) => {
			this.wake = () => resolve("event");
		});
		const idle = this.o.tutor.idle(this.sessionId).then(() => "idle" as const);
		const timeout = new Promise<"timeout">((resolve) => {
			timer = setTimeout(() => resolve("timeout"), maxWaitMs);
		});
		const first = await Promise.race([arrived, idle, timeout, this.interrupted]);
		clearTimeout(timer);
		this.wake = undefined;
		if (first === "interrupted") return first;
		if (first === "timeout") this.print(this.s("yellow", "The tutor is taking long; you can type a message."));
		// Events of a finished turn may still be on their way to the sink: let them land.
		await new Promise((resolve) => setImmediate(resolve));
		return this.queue.length > 0;
	}

	private async show(event: TutorEvent): Promise<void> {
		switch (event.type) {
			case "typing":
				if (event.active) this.screen.showStatus("… thinking (Ctrl+C pauses)", (t) => this.s("dim", t));
				else this.screen.clearStatus();
				return;
			case "plan":
				if (this.progress) this.progress.plan = { tree: event.tree, statuses: event.statuses };
				// A new map is shown whole; moving on in it shows where you are now.
				await this.showPlan(event.tree, event.statuses, event.reason === "moved");
				return;
			case "quiz":
			case "ask":
				await this.progress?.opened(event);
				this.showQuestion(event);
				return;
			case "ended":
				this.ended = true;
				break;
			case "answered":
				await this.progress?.closed(event.toolCallId);
				break;
		}
		const card = cardFromEvent(event);
		if (card) this.print(formatCard(card, this.s));
		if (event.type === "ended") this.print(this.s("dim", `Session ${this.sessionId} is over.`));
	}

	private showQuestion(event: QuestionEvent): void {
		const progress = this.progress?.progressLine(event);
		if (progress) this.print(this.s("dim", progress));
		const card = cardFromEvent(event);
		// An interactive picker lists the choices itself; a script's reader needs them printed.
		if (card) this.print(formatCard(card, this.s, { choices: !this.o.interactive }));
	}

	private async showPlan(tree: PlanTree, statuses: DerivedPlanStatuses, compact: boolean): Promise<void> {
		const text = await renderPlanForTerminal(tree, statuses, this.o.renderer, this.pictures, this.logger, compact);
		this.print(text);
	}

	private async answer(question: QuestionEvent): Promise<PlaygroundResult | undefined> {
		const card = cardFromEvent(question) as QuestionCard | undefined;
		if (!card) {
			await this.progress?.closed(question.toolCallId);
			return undefined;
		}
		const free = card.choices.length === 0;
		const answer = await this.input<Answer<number | string>>(() =>
			free ? this.o.source.text("Your answer", { answer: true }) : this.o.source.choose(card),
		);
		if (answer === "interrupted") return this.paused();
		if (answer === undefined) return this.inputEnded();
		if (typeof answer === "object") return this.command(answer.command);
		const event: LearnerEvent =
			typeof answer === "number"
				? { type: "answer", toolCallId: question.toolCallId, value: answer, by: this.learner }
				: { type: "reply", toolCallId: question.toolCallId, text: answer, by: this.learner };
		const verdict = await this.o.tutor.handle(this.sessionId, event);
		if (verdict.ok || verdict.code !== "invalid-answer") await this.progress?.closed(question.toolCallId);
		return this.refused(verdict);
	}

	private async message(): Promise<PlaygroundResult | undefined> {
		const summary = await this.o.tutor.getSession(this.sessionId);
		if (summary?.phase === "ended") return this.result("ended", 0);
		const text = await this.input(() => this.o.source.text("You"));
		if (text === "interrupted") return this.paused();
		if (text === undefined) return this.inputEnded();
		if (typeof text === "object") return this.command(text.command);
		return this.refused(await this.o.tutor.handle(this.sessionId, { type: "message", text, by: this.learner }));
	}

	/** Says why an event was refused; the run ends when the lesson is gone. */
	private refused(verdict: HandleResult): PlaygroundResult | undefined {
		if (verdict.ok) return undefined;
		this.print(this.s("yellow", verdict.message));
		return verdict.code === "ended" || verdict.code === "unknown-session" ? this.result("ended", 0) : undefined;
	}

	private async command(command: "quit" | "end"): Promise<PlaygroundResult | undefined> {
		if (command === "quit") return this.paused();
		const verdict = await this.o.tutor.handle(this.sessionId, { type: "end", by: this.learner });
		if (!verdict.ok) this.print(this.s("yellow", verdict.message));
		return undefined;
	}

	private get cli(): string {
		return this.o.command ?? "learnharness";
	}

	/** The resume command on a line of its own (indented: never wrapped, easy to copy). */
	private resumeHint(): string {
		return `\n    ${this.s("bold", `${this.cli} playground --resume ${this.sessionId}`)}`;
	}

	private paused(): PlaygroundResult {
		this.print(`Paused. Resume with:${this.resumeHint()}`);
		return this.result("paused", 0);
	}

	private inputEnded(): PlaygroundResult {
		this.print(`Input ended. Resume with:${this.resumeHint()}`);
		return this.result("input-ended", this.o.interactive ? 0 : 1);
	}

	private printSessionLine(): void {
		const how = this.o.interactive
			? "Ctrl+C or /quit pauses (resume later), /end ends the lesson."
			: "Type /quit to pause, /end to end the lesson.";
		this.print(this.s("dim", `Session ${this.sessionId}. ${how}`));
	}

	private print(text: string): void {
		this.screen.print(text);
	}
}
