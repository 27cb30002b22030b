import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PassThrough, Readable } from "node:stream";
import { afterAll, describe, expect, it } from "vitest";
import { createLineSource } from "../../../src/adapters/terminal/input.ts";
import { runPlayground } from "../../../src/adapters/terminal/playground.ts";
import { createSessionStore, createTutor } from "../../../src/agent/index.ts";
import { createDemoModel } from "../../../src/agent/models/demo-model.ts";
import type { HandleResult, LearnerEvent, TutorEvent } from "../../../src/core/contracts/events.ts";
import type { SessionSummary, Tutor, TutorEventSink } from "../../../src/core/contracts/tutor.ts";
import type { QuizToolInput } from "../../../src/core/question-core.ts";
import type { PlanPicture, PlanRenderer } from "../../../src/render/index.ts";

/** Answers that walk the whole demo lesson, all correct. */
// Misses the phone-book question (A) and the halving count (B): the demo walks its whole map.
const PROBE_ANSWERS = ["A", "B", "8"];
// Predict and check on each of the four nodes, then the recall before the recap (typed).
const TEACH_ANSWERS = ["B", "A", "B", "8", "B", "B", "A", "A", "You halve the range until it is empty."];

const dir = mkdtempSync(join(tmpdir(), "lh-playground-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function output() {
	const out = new PassThrough();
	let text = "";
	out.on("data", (c: Buffer) => {
		text += c.toString();
	});
	return { out, text: () => text };
}

const PNG = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 1, 2, 3]);
const fakeRenderer: PlanRenderer = {
	async renderPlan(tree, statuses): Promise<PlanPicture> {
		return {
			key: `${tree.version}:${statuses.current}`,
			caption: "c",
			outline: `outline ${statuses.current}`,
			png: PNG,
		};
	},
	async renderMermaid() {
		return PNG;
	},
	stats: () => ({ launches: 0, renders: 0, cacheHits: 0, failures: 0, blockedRequests: 0, blockedUrls: [] }),
	async close() {},
};

async function demoTutor(url: string): Promise<Tutor> {
	return createTutor({ model: createDemoModel(), store: await createSessionStore(url) });
}

describe("playground on the real engine and the demo model", () => {
	it("runs a whole lesson from one answer a line, with progress, plan pictures and the recap", async () => {
		const tutor = await demoTutor("memory://");
		const { out, text } = output();
		const plansDir = join(dir, "plans-a");
		const result = await runPlayground({
			tutor,
			renderer: fakeRenderer,
			source: createLineSource(Readable.from([...PROBE_ANSWERS, ...TEACH_ANSWERS].map((l) => `${l}\n`)), out),
			output: out,
			topic: "binary search",
			plansDir,
		});
		await tutor.close();
		expect(result).toMatchObject({ outcome: "ended", exitCode: 0 });
		expect(result.sessionId).toMatch(/^terminal:[a-z0-9]+$/);
		// One picture per node the learner is on (the map drawn and moved to its first node in one turn is one).
		expect(result.pictures.length).toBeGreaterThanOrEqual(4);
		for (const file of result.pictures) expect(existsSync(file)).toBe(true);
		const shown = text();
		expect(shown).toMatch(/built-in demo model/);
		expect(shown).toMatch(/Getting to know you · question 3/);
		expect(shown).toMatch(/What I learned about you/);
		expect(shown).toMatch(/Plan picture: .*-1\.png/);
		expect(shown).toMatch(/Step 4 of 4 · Count the steps/);
		// The whole map once; after that, where the learner is now.
		expect(shown.match(/○ Count the steps/g)).toHaveLength(1);
		// The first step's check was answered right at once: the caption counts it as learned.
		expect(shown).toMatch(/Now: Check the middle · 1 of 4 visited · 1 learned\nPlan picture: /);
		expect(shown).toMatch(/Legend: ▶ current · ✓ learned · ~ shaky · • visited · ○ not yet/);
		expect(shown).toMatch(/Recap: binary search/);
		expect(shown).toMatch(/Lesson complete/);
		expect(shown).not.toMatch(/expected a letter/);
	});

	it("pauses with /quit and resumes by id after a restart, showing the open question again", async () => {
		const url = `sqlite://${join(dir, "resume.sqlite")}`;
		const plansDir = join(dir, "plans-b");
		const first = await demoTutor(url);
		const a = output();
		const paused = await runPlayground({
			tutor: first,
			renderer: fakeRenderer,
			source: createLineSource(Readable.from([...PROBE_ANSWERS, "B", "/quit"].map((l) => `${l}\n`)), a.out),
			output: a.out,
			topic: "binary search",
			plansDir,
		});
		await first.close();
		expect(paused.outcome).toBe("paused");
		expect(a.text()).toMatch(/Resume with:\n {4}learnharness playground --resume terminal:/);

		const second = await demoTutor(url);
		const b = output();
		const resumed = await runPlayground({
			tutor: second,
			renderer: fakeRenderer,
			source: createLineSource(Readable.from(TEACH_ANSWERS.slice(1).map((l) => `${l}\n`)), b.out),
			output: b.out,
			resume: String(paused.sessionId).replace(/^terminal:/, ""),
			plansDir,
		});
		await second.close();
		expect(resumed).toMatchObject({ outcome: "ended", exitCode: 0, sessionId: paused.sessionId });
		expect(b.text()).toMatch(/Resuming: binary search/);
		// The check quiz that was open when the learner paused is shown again and answered.
		expect(b.text()).toMatch(/Which list can you binary-search for 42/);
		expect(b.text()).toMatch(/Lesson complete/);
		// Picture numbering continues instead of overwriting the first run's files.
		const last = paused.pictures.at(-1) ?? "";
		expect(resumed.pictures[0]).not.toBe(last);
		expect(new Set([...paused.pictures, ...resumed.pictures]).size).toBe(
			paused.pictures.length + resumed.pictures.length,
		);
	});

	it("exits 1 when scripted input ends before the lesson does, and says how to resume", async () => {
		const tutor = await demoTutor("memory://");
		const { out, text } = output();
		const result = await runPlayground({
			tutor,
			source: createLineSource(Readable.from(["B\n"]), out),
			output: out,
			topic: "x",
		});
		await tutor.close();
		expect(result).toMatchObject({ outcome: "input-ended", exitCode: 1 });
		expect(text()).toMatch(/--resume terminal:/);
	});
});

/** A scripted Tutor for the loop's edge cases: its summary follows the events it emits. */
function fakeTutor(
	handle: (event: LearnerEvent, emit: (e: TutorEvent) => void, sessionId: string) => HandleResult,
	options: { thinksForever?: boolean } = {},
): Tutor & {
	handled: LearnerEvent[];
} {
	const sinks: TutorEventSink[] = [];
	let sessionId = "";
	let summary: SessionSummary | undefined;
	const emit = (e: TutorEvent) => {
		if (summary && (e.type === "quiz" || e.type === "ask"))
			summary.pending.push({ toolCallId: e.toolCallId, kind: "quiz", input: e.input as QuizToolInput });
		if (summary && e.type === "ended") summary.phase = "ended";
		for (const s of sinks) void s(e);
	};
	const handled: LearnerEvent[] = [];
	return {
		handled,
		async startLesson(o) {
			sessionId = o.sessionId;
			summary = {
				sessionId,
				topic: o.topic,
				learner: o.learner,
				mode: o.mode,
				phase: "probe",
				createdAt: new Date(0).toISOString(),
				pending: [],
				probeQuestions: 0,
				messageCount: 1,
				usage: { inputTokens: 0, outputTokens: 0, cachedInputTokens: 0 },
			};
			if (options.thinksForever) {
				setImmediate(() => emit({ type: "typing", sessionId, active: true }));
				return { ok: true };
			}
			emit({
				type: "quiz",
				sessionId,
				toolCallId: "q1",
				input: { question: "2+2?", options: ["3", "4"], correctAnswer: "4" },
			});
			return { ok: true };
		},
		async handle(_id, event) {
			handled.push(event);
			const verdict = handle(event, emit, sessionId);
			if (verdict.ok && summary && event.type === "answer")
				summary.pending = summary.pending.filter((p) => p.toolCallId !== event.toolCallId);
			return verdict;
		},
		async getSession(): Promise<SessionSummary | undefined> {
			return summary && { ...summary, pending: [...summary.pending] };
		},
		subscribe(sink) {
			sinks.push(sink);
			return () => sinks.splice(sinks.indexOf(sink), 1);
		},
		idle: () => (options.thinksForever ? new Promise<void>(() => undefined) : new Promise((r) => setImmediate(r))),
		async resume() {
			return 0;
		},
		async close() {},
	};
}

describe("playground loop edge cases", () => {
	it("asks again after an invalid-answer refusal, and ends on the ended event", async () => {
		let calls = 0;
		const tutor = fakeTutor((_event, emit, sessionId) => {
			calls++;
			if (calls === 1) return { ok: false, code: "invalid-answer", message: "That choice is not offered." };
			setImmediate(() => emit({ type: "ended", sessionId, reason: "completed" }));
			return { ok: true };
		});
		const { out, text } = output();
		const result = await runPlayground({
			tutor,
			source: createLineSource(Readable.from(["A\n", "B\n"]), out),
			output: out,
			topic: "sums",
		});
		expect(result).toMatchObject({ outcome: "ended", exitCode: 0 });
		expect(tutor.handled).toEqual([
			expect.objectContaining({ type: "answer", toolCallId: "q1", value: 0 }),
			expect.objectContaining({ type: "answer", toolCallId: "q1", value: 1 }),
		]);
		expect(text()).toMatch(/That choice is not offered\./);
	});

	it("sends /end as an end event", async () => {
		const tutor = fakeTutor(() => ({ ok: true }));
		const { out } = output();
		const result = await runPlayground({
			tutor,
			source: createLineSource(Readable.from(["/end\n"]), out),
			output: out,
			topic: "sums",
		});
		expect(tutor.handled[0]).toMatchObject({ type: "end" });
		expect(result.outcome).toBe("input-ended");
	});

	it("pauses with the resume hint when stopped while the tutor is thinking (Ctrl+C outside a prompt)", async () => {
		const tutor = fakeTutor(() => ({ ok: true }), { thinksForever: true });
		const { out, text } = output();
		const stop = new AbortController();
		out.on("data", () => {
			if (text().includes("Session terminal:")) stop.abort();
		});
		const result = await runPlayground({
			tutor,
			source: createLineSource(new PassThrough(), out), // input that never comes
			output: out,
			topic: "sums",
			command: "npx learnharness",
			signal: stop.signal,
		});
		expect(result).toMatchObject({ outcome: "paused", exitCode: 0 });
		expect(text()).toMatch(/Paused\. Resume with:\n {4}npx learnharness playground --resume terminal:[a-z0-9]+\n/);
	});

	it("shows a 'thinking' line on a terminal and replaces it with what comes next", async () => {
		const tutor = fakeTutor(() => ({ ok: true }), { thinksForever: true });
		const { out, text } = output();
		Object.assign(out, { isTTY: true, columns: 60 });
		const stop = new AbortController();
		out.on("data", () => {
			if (text().includes("thinking")) stop.abort();
		});
		await runPlayground({
			tutor,
			source: createLineSource(new PassThrough(), out),
			output: out,
			interactive: true,
			topic: "sums",
			signal: stop.signal,
		});
		// Erased in place (carriage return, clear line) before the next block prints.
		expect(text()).toContain("… thinking (Ctrl+C pauses)\r\u001b[2KPaused.");
	});
});

describe("playground progress across a pause", () => {
	it("keeps counting the 'getting to know you' questions after --resume", async () => {
		const url = `sqlite://${join(dir, "progress.sqlite")}`;
		const first = await demoTutor(url);
		const a = output();
		const paused = await runPlayground({
			tutor: first,
			source: createLineSource(Readable.from(["B\n", "/quit\n"]), a.out),
			output: a.out,
			topic: "binary search",
		});
		await first.close();
		expect(a.text()).toMatch(/Getting to know you · question 2/);

		const second = await demoTutor(url);
		const b = output();
		await runPlayground({
			tutor: second,
			source: createLineSource(Readable.from(["C\n", "/quit\n"]), b.out),
			output: b.out,
			resume: String(paused.sessionId),
		});
		await second.close();
		expect(b.text()).toMatch(/Resuming: binary search \(getting to know you\)/);
		// The open question is shown again as number 2 (not 1), and the next one is number 3.
		expect(b.text()).toMatch(/Getting to know you · question 2[\s\S]*Getting to know you · question 3/);
		expect(b.text()).not.toMatch(/question 1\b/);
	});
});
