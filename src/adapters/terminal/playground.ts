/**
 * The terminal playground: a whole lesson through the real engine and the
 * same cards as the chat platforms. Tutor events are shown as they come; when
 * the tutor is idle the learner answers the open question (or types a
 * message). Open questions are kept in the session's extra metadata, so a
 * resumed lesson can show them again.
 */

import { randomBytes } from "node:crypto";
import type { Writable } from "node:stream";
import type { LearnerEvent, LessonMode, Participant, TutorEvent } from "../../core/contracts/events.ts";
import { type Logger, silentLogger } from "../../core/contracts/logger.ts";
import type { DerivedPlanStatuses, PlanTree } from "../../core/contracts/plan.ts";
import type { SessionSummary, Tutor } from "../../core/contracts/tutor.ts";
import { cardFromEvent, type PlanRenderer, type QuestionCard } from "../../render/index.ts";
import { createStyler, formatCard, type Styler } from "./format.ts";
import type { AnswerSource } from "./input.ts";
import { PlanPictures, renderPlanForTerminal } from "./plan-pictures.ts";

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

type QuestionEvent = Extract<TutorEvent, { type: "quiz" | "ask" }>;

/** The extra-metadata key holding the questions shown and not yet answered. */
export const OPEN_QUESTIONS_KEY = "terminal.open";

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
	private readonly logger: Logger;
	private readonly learner: Participant;
	private readonly queue: TutorEvent[] = [];
	private readonly open = new Map<string, QuestionEvent>();
	private wake: (() => void) | undefined;
	private unsubscribe: (() => void) | undefined;
	private sessionId = "";
	private plan: { tree: PlanTree; statuses: DerivedPlanStatuses } | undefined;
	private probeQuestions = 0;
	private ended = false;
	private pictures: PlanPictures | undefined;

	constructor(private readonly o: PlaygroundOptions) {
		this.s = createStyler(o.color ?? false);
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
		this.unsubscribe?.();
		this.o.source.close();
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
			const answer = await this.o.source.text("What would you like to learn?");
			if (typeof answer !== "string") return this.result("input-ended", this.o.interactive ? 0 : 1);
			topic = answer;
		}
		this.sessionId = `terminal:${randomBytes(5).toString("hex")}`;
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
			this.print(this.s("red", `No lesson ${this.sessionId} in this store. Start one with: learnharness playground`));
			return this.result("failed", 1);
		}
		this.pictures = new PlanPictures(this.o.plansDir ?? "data/plans", this.sessionId);
		this.subscribe();
		this.print(this.s("bold", `Resuming: ${summary.topic} (${summary.phase}, ${summary.messageCount} messages)`));
		if (summary.phase === "ended") {
			this.print(this.s("yellow", "This lesson has ended."));
			return this.result("ended", 0);
		}
		this.printSessionLine();
		if (summary.plan) {
			this.plan = summary.plan;
			await this.showPlan(summary.plan.tree, summary.plan.statuses);
		}
		this.restoreOpenQuestions(summary);
		for (const question of this.open.values()) this.showQuestion(question);
		return undefined;
	}

	private restoreOpenQuestions(summary: SessionSummary): void {
		const pendingIds = new Set(summary.pending.map((p) => p.toolCallId));
		let saved: unknown;
		try {
			saved = JSON.parse(summary.extra[OPEN_QUESTIONS_KEY] ?? "[]");
		} catch {
			saved = [];
		}
		for (const q of Array.isArray(saved) ? (saved as QuestionEvent[]) : [])
			if (q && pendingIds.has(q.toolCallId) && (q.type === "quiz" || q.type === "ask")) this.open.set(q.toolCallId, q);
		if (pendingIds.size > this.open.size)
			this.print(this.s("yellow", "A question from before cannot be shown here; type a message to carry on."));
	}

	private async loop(): Promise<PlaygroundResult> {
		for (;;) {
			const event = this.queue.shift();
			if (event) {
				await this.show(event);
				if (this.ended) return this.result("ended", 0);
				continue;
			}
			if (await this.waitForEventOrIdle()) continue;
			const [question] = this.open.values();
			const outcome = question ? await this.answer(question) : await this.message();
			if (outcome) return outcome;
		}
	}

	/** True when an event arrived; false when the tutor is idle with nothing queued (or the wait ran out). */
	private async waitForEventOrIdle(): Promise<boolean> {
		const maxWaitMs = this.o.maxWaitMs ?? 600_000;
		let timer: NodeJS.Timeout | undefined;
		const arrived = new Promise<"event">((resolve) => {
			this.wake = () => resolve("event");
		});
		const idle = this.o.tutor.idle(this.sessionId).then(() => "idle" as const);
		const timeout = new Promise<"timeout">((resolve) => {
			timer = setTimeout(() => resolve("timeout"), maxWaitMs);
		});
		const first = await Promise.race([arrived, idle, timeout]);
		clearTimeout(timer);
		this.wake = undefined;
		if (first === "timeout") this.print(this.s("yellow", "The tutor is taking long; you can type a message."));
		// Events of a finished turn may still be on their way to the sink: let them land.
		await new Promise((resolve) => setImmediate(resolve));
		return this.queue.length > 0;
	}

	private async show(event: TutorEvent): Promise<void> {
		switch (event.type) {
			case "typing":
				return;
			case "plan":
				this.plan = { tree: event.tree, statuses: event.statuses };
				await this.showPlan(event.tree, event.statuses);
				return;
			case "quiz":
			case "ask":
				this.open.set(event.toolCallId, event);
				await this.saveOpenQuestions();
				this.showQuestion(event);
				return;
			case "ended":
				this.ended = true;
				break;
			case "answered":
				this.open.delete(event.toolCallId);
				break;
		}
		const card = cardFromEvent(event);
		if (card) this.print(formatCard(card, this.s));
		if (event.type === "ended") this.print(this.s("dim", `Session ${this.sessionId} is over.`));
	}

	private showQuestion(event: QuestionEvent): void {
		if (!this.plan) this.probeQuestions++;
		const progress = this.progressLine(event);
		if (progress) this.print(this.s("dim", progress));
		const card = cardFromEvent(event);
		// An interactive picker lists the choices itself; a script's reader needs them printed.
		if (card) this.print(formatCard(card, this.s, { choices: !this.o.interactive }));
	}

	private progressLine(event: QuestionEvent): string | undefined {
		if (!this.plan)
			return this.probeQuestions > 0 ? `Getting to know you · question ${this.probeQuestions}` : undefined;
		const nodes = this.plan.tree.nodes;
		const nodeId = event.type === "quiz" ? (event.nodeId ?? this.plan.statuses.current) : this.plan.statuses.current;
		const index = nodes.findIndex((n) => n.id === nodeId);
		if (index < 0) return `Lesson map: ${nodes.length} steps`;
		return `Step ${index + 1} of ${nodes.length} · ${nodes[index]?.title ?? ""}`;
	}

	private async showPlan(tree: PlanTree, statuses: DerivedPlanStatuses): Promise<void> {
		const text = await renderPlanForTerminal(tree, statuses, this.o.renderer, this.pictures, this.logger);
		this.print(text);
	}

	private async answer(question: QuestionEvent): Promise<PlaygroundResult | undefined> {
		const card = cardFromEvent(question) as QuestionCard | undefined;
		if (!card) {
			this.open.delete(question.toolCallId);
			return undefined;
		}
		const free = card.choices.length === 0;
		const answer = free ? await this.o.source.text("Your answer") : await this.o.source.choose(card);
		if (answer === undefined) return this.inputEnded();
		if (typeof answer === "object") return this.command(answer.command);
		const event: LearnerEvent =
			typeof answer === "number"
				? { type: "answer", toolCallId: question.toolCallId, value: answer, by: this.learner }
				: { type: "reply", toolCallId: question.toolCallId, text: answer, by: this.learner };
		const verdict = await this.o.tutor.handle(this.sessionId, event);
		if (verdict.ok || verdict.code !== "invalid-answer") {
			this.open.delete(question.toolCallId);
			await this.saveOpenQuestions();
		}
		if (!verdict.ok) {
			this.print(this.s("yellow", verdict.message));
			if (verdict.code === "ended" || verdict.code === "unknown-session") return this.result("ended", 0);
		}
		return undefined;
	}

	private async message(): Promise<PlaygroundResult | undefined> {
		const summary = await this.o.tutor.getSession(this.sessionId);
		if (summary?.phase === "ended") return this.result("ended", 0);
		const text = await this.o.source.text("You");
		if (text === undefined) return this.inputEnded();
		if (typeof text === "object") return this.command(text.command);
		const verdict = await this.o.tutor.handle(this.sessionId, { type: "message", text, by: this.learner });
		if (!verdict.ok) {
			this.print(this.s("yellow", verdict.message));
			if (verdict.code === "ended" || verdict.code === "unknown-session") return this.result("ended", 0);
		}
		return undefined;
	}

	private async command(command: "quit" | "end"): Promise<PlaygroundResult | undefined> {
		if (command === "quit") {
			this.print(`Paused. Resume with: ${this.s("bold", `learnharness playground --resume ${this.sessionId}`)}`);
			return this.result("paused", 0);
		}
		const verdict = await this.o.tutor.handle(this.sessionId, { type: "end", by: this.learner });
		if (!verdict.ok) this.print(this.s("yellow", verdict.message));
		return undefined;
	}

	private inputEnded(): PlaygroundResult {
		this.print(`Input ended. Resume with: learnharness playground --resume ${this.sessionId}`);
		return this.result("input-ended", this.o.interactive ? 0 : 1);
	}

	private async saveOpenQuestions(): Promise<void> {
		try {
			await this.o.tutor.setExtra(this.sessionId, OPEN_QUESTIONS_KEY, JSON.stringify([...this.open.values()]));
		} catch (error) {
			this.logger.warn({ err: error }, "could not save the open questions");
		}
	}

	private printSessionLine(): void {
		this.print(this.s("dim", `Session ${this.sessionId}. Type /quit to pause, /end to end the lesson.`));
	}

	private print(text: string): void {
		this.o.output.write(`${text}\n\n`);
	}
}
