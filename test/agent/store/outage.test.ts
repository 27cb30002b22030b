/**
 * The real backends failing: a store that cannot be used fails the start in seconds with a
 * sentence naming the store and the cause (not a 75-second hang, not a silent start), and a
 * Redis that dies mid-lesson costs nothing: a click meanwhile is refused with a notice and
 * nothing is posted that was not saved; when Redis is back the lesson goes on, by itself for
 * a turn that was waiting to save.
 */
import { writeFileSync } from "node:fs";
import { afterAll, describe, expect, it } from "vitest";
import { isStoreError } from "../../../src/agent/store/errors.ts";
import { createSessionStore } from "../../../src/agent/store/session-store.ts";
import { createTutor } from "../../../src/agent/tutor.ts";
import type { TutorEvent } from "../../../src/core/contracts/events.ts";
import { freePort, listening, redisServerInstalled, testRedis } from "../../fixtures/redis-server.ts";
import { learner, probeQuiz, scriptedModel, tempDir } from "../helpers.ts";

const dir = tempDir();
afterAll(() => dir.cleanup());
const redisUp = await listening(6379);

/** The start-up check's failure for `url`, and how long it took. */
async function startFailure(url: string): Promise<{ error: unknown; ms: number }> {
	const started = Date.now();
	try {
		const store = await createSessionStore(url);
		await store.close();
	} catch (error) {
		return { error, ms: Date.now() - started };
	}
	throw new Error(`the store ${url} opened`);
}

describe("a store that cannot be used fails the start, at once, in words", () => {
	it("a SQLite file that is not a database", async () => {
		const path = `${dir.path}/not-a-db.sqlite`;
		writeFileSync(path, "these are notes, not a database\n".repeat(200));
		const { error, ms } = await startFailure(`sqlite://${path}`);
		expect(isStoreError(error)).toBe(true);
		expect(String((error as Error).message)).toMatch(
			/not-a-db\.sqlite cannot be used: SQLITE_NOTADB: file is not a database$/,
		);
		expect(ms).toBeLessThan(10_000); // a hang guard, not a benchmark
	});

	it("an unreachable PostgreSQL", async () => {
		const port = await freePort();
		const { error, ms } = await startFailure(`postgres://postgres:secret@127.0.0.1:${port}/test`);
		expect((error as Error).message).toBe(
			`The store at postgres://postgres:***@127.0.0.1:${port}/test cannot be used: connect ECONNREFUSED 127.0.0.1:${port}`,
		);
		expect(ms).toBeLessThan(10_000);
	});

	it("an unreachable Redis", async () => {
		const port = await freePort();
		const { error, ms } = await startFailure(`redis://127.0.0.1:${port}`);
		expect((error as Error).message).toBe(
			`The store at redis://127.0.0.1:${port} cannot be used: connect ECONNREFUSED 127.0.0.1:${port}`,
		);
		expect(ms).toBeLessThan(10_000);
	});

	it.skipIf(!redisUp)("a Redis db index that does not exist (skipped without Redis on 6379)", async () => {
		const { error, ms } = await startFailure("redis://127.0.0.1:6379/99");
		expect((error as Error).message).toMatch(/cannot be used: ERR DB index is out of range/);
		expect(ms).toBeLessThan(10_000);
	});

	it.skipIf(!redisUp)("a wrong Redis password (skipped without Redis on 6379)", async () => {
		const { error } = await startFailure("redis://:wrong@127.0.0.1:6379");
		expect((error as Error).message).toMatch(/redis:\/\/:\*\*\*@127\.0\.0\.1:6379 cannot be used: .*(AUTH|WRONGPASS)/);
	});
});

describe.skipIf(!redisServerInstalled)("Redis stopped mid-lesson (skipped: no redis-server binary)", () => {
	it("refuses what it cannot save, posts nothing unsaved, and resumes when Redis is back", async () => {
		const redis = testRedis(await freePort(), dir.path);
		await redis.start();
		let release!: () => void;
		const gate = new Promise<void>((done) => (release = done));
		const model = scriptedModel([
			{ calls: [{ name: "quiz", input: probeQuiz, id: "q1" }] },
			{ gate, text: "Good. Next:", calls: [{ name: "ask", input: { question: "Why?" }, id: "a1" }] },
		]);
		const store = await createSessionStore(redis.url, undefined, { namespace: "outage" });
		const tutor = createTutor({ model, store, maxRetries: 0, saveRetryMs: 500 });
		const events: TutorEvent[] = [];
		tutor.subscribe((e) => void events.push(e));
		const sessionId = "terminal:outage";
		try {
			await tutor.startLesson({ sessionId, topic: "fractions", learner, mode: "solo" });
			await tutor.idle(sessionId);
			expect(events.filter((e) => e.type === "quiz")).toHaveLength(1);

			await redis.stop();
			const click = { type: "answer", toolCallId: "q1", value: 1, by: learner } as const;
			expect(await tutor.handle(sessionId, click)).toMatchObject({ ok: false, code: "store-unavailable" });
			expect(events.some((e) => e.type === "answered")).toBe(false);

			await redis.start();
			// The client reconnects by itself (capped backoff): the same click goes through once it has.
			let verdict = await tutor.handle(sessionId, click);
			for (let i = 0; i < 40 && !verdict.ok; i++) {
				await new Promise((done) => setTimeout(done, 100));
				verdict = await tutor.handle(sessionId, click);
			}
			expect(verdict).toEqual({ ok: true });
			// Accepted means queued in the session's inbox; the lease holder (here) records it, then the turn starts.
			for (let i = 0; i < 300 && !events.some((e) => e.type === "answered"); i++)
				await new Promise((done) => setTimeout(done, 10));
			expect(events.filter((e) => e.type === "answered")).toHaveLength(1);

			// The answer's turn waits on the model; Redis dies before the step is saved.
			await redis.stop();
			release();
			for (let i = 0; i < 200 && !events.some((e) => e.type === "error"); i++)
				await new Promise((done) => setTimeout(done, 10));
			expect(events.filter((e) => e.type === "error").map((e) => e.type === "error" && e.code)).toEqual([
				"store-unavailable",
			]);
			expect(events.some((e) => e.type === "ask")).toBe(false); // not saved: not posted

			await redis.start();
			await tutor.idle(sessionId);
			expect(events.filter((e) => e.type === "ask").map((e) => e.type === "ask" && e.toolCallId)).toEqual(["a1"]);
			const saved = await store.get(sessionId);
			expect(JSON.stringify(saved?.messages)).toContain('"toolCallId":"a1"');
		} finally {
			await tutor.close();
			await redis.stop();
		}
	});
});
