/**
 * Caps that hold: many turns at once against one community's daily cap (or one member's) spend
 * at most the cap plus one request's maximum output, on every state store backend (SQLite, Redis,
 * PostgreSQL), with two budget hooks on two connections standing for two processes. The real
 * engine, the lesson controller's budget hook and ledger, and a model that reports the worst usage
 * the estimate allows: input as large as the estimate (characters / 4 of what it is sent) and
 * output as large as the maximum.
 */

import { join } from "node:path";
import type { LanguageModelV3CallOptions } from "@ai-sdk/provider";
import { MockLanguageModelV3 } from "ai/test";
import { describe, expect, it } from "vitest";
import { createLessonBudget } from "../../../src/adapters/lesson/lesson-budget.ts";
import type { LessonRules } from "../../../src/adapters/lesson/lesson-rules.ts";
import { LessonState } from "../../../src/adapters/lesson/lesson-state.ts";
import { periodTokens, UsageLedger } from "../../../src/adapters/lesson/usage-ledger.ts";
import { openStateStore, type StateStore } from "../../../src/agent/index.ts";
import { createSessionStore } from "../../../src/agent/store/session-store.ts";
import { createTutor } from "../../../src/agent/tutor.ts";
import type { TurnBudget } from "../../../src/core/contracts/budget.ts";
import type { TutorEvent } from "../../../src/core/contracts/events.ts";
import { silentLogger } from "../../../src/core/contracts/logger.ts";
import { replyStream } from "../../../testkit/model-stream.ts";
import { stateBackends } from "../../fixtures/shared-backends.ts";

const { ns, dir, backends } = await stateBackends("caps");

/** A turn step's maximum output here (what a reply may pass a cap by). */
const MAX_OUTPUT = 256;
const now = () => new Date("2025-03-01T10:00:00Z");

/**
 * A model whose every reply spends what its reservation held: input = characters / 4 of its
 * prompt and tools (what the engine estimates), output = the maximum. It waits a little first, so
 * the turns overlap (each reserves before any has spent).
 */
function worstCaseModel() {
	return new MockLanguageModelV3({
		doStream: async (options: LanguageModelV3CallOptions) => {
			await new Promise((done) => setTimeout(done, 30));
			const input = Math.ceil(JSON.stringify({ prompt: options.prompt, tools: options.tools }).length / 4);
			return {
				stream: replyStream({ text: "Hello.", usage: { input, cached: 0, output: options.maxOutputTokens ?? 4_000 } }),
			};
		},
	});
}

/** A budget hook per connection (two processes), used by alternate sessions. */
function twoProcesses(stores: StateStore[], rules: Partial<LessonRules>): { budget: TurnBudget; ledger: UsageLedger } {
	const hooks = stores.map((store) =>
		createLessonBudget({
			state: new LessonState(store, rules),
			ledger: new UsageLedger(store),
			style: { startHint: "`/lesson start`" },
			place: "workspace",
			logger: silentLogger,
			now,
		}),
	);
	const pick = (sessionId: string) => hooks[Number(sessionId.split("-").at(-1)) % hooks.length] as TurnBudget;
	return {
		budget: {
			reserve: (estimate) => pick(estimate.sessionId).reserve(estimate),
			spent: (usage, reservation) => pick(usage.sessionId).spent(usage, reservation),
		},
		ledger: new UsageLedger(stores[0] as StateStore),
	};
}

/** Start `lessons` lessons at once (learner of lesson i: `learnerOf(i)`) and wait for their first turns. */
async function startAtOnce(
	budget: TurnBudget,
	community: string,
	lessons: number,
	learnerOf: (i: number) => string,
): Promise<{ requests: number; refused: number }> {
	const model = worstCaseModel();
	const store = await createSessionStore(`sqlite://${join(dir, `${community}.sqlite`)}`);
	const tutor = createTutor({ model, store, maxRetries: 0, turnGate: false, maxOutputTokens: MAX_OUTPUT, budget });
	const events: TutorEvent[] = [];
	tutor.subscribe((e) => {
		events.push(e);
	});
	const ids = Array.from({ length: lessons }, (_, i) => `slack:${community}:C1:lesson-${i}`);
	await Promise.all(
		ids.map((sessionId, i) =>
			tutor.startLesson({ sessionId, topic: "fractions", learner: { id: learnerOf(i) }, mode: "solo" }),
		),
	);
	await Promise.all(ids.map((sessionId) => tutor.idle(sessionId)));
	await tutor.close(); // closes its store too
	const refused = events.filter((e) => e.type === "error" && e.code === "budget").length;
	return { requests: model.doStreamCalls.length, refused };
}

describe.each(backends)("cost caps hold on %s", (name, up, url) => {
	const community = `${ns}${name.slice(0, 2)}`;
	/** Two connections, connected (a store failure lets requests go: the test must not start on a connecting client). */
	const open = async (): Promise<StateStore[]> => {
		const stores = [openStateStore(url(), ns), openStateStore(url(), ns)];
		await Promise.all(stores.map((s) => s.increment(`${community}:connected`, 1, 60_000)));
		return stores;
	};

	// One first request costs about 2,650 tokens here (its prompt and tools, and the maximum output): a
	// 3,000 cap lets one through, 12,000 a few at once; the rest are refused.
	it.skipIf(!up).each([3_000, 12_000])(
		"20 learners start 20 lessons at once on a %i-token workspace cap: at most the cap plus one reply's maximum is spent",
		async (cap) => {
			const stores = await open();
			try {
				const where = `${community}w${cap}`;
				const { budget, ledger } = twoProcesses(stores, { serverTokensPerDay: cap });
				const { requests, refused } = await startAtOnce(budget, where, 20, (i) => `U${i}`);
				const spent = periodTokens(await ledger.day(where, now()));
				expect(requests).toBeGreaterThan(0);
				expect(refused).toBe(20 - requests);
				expect(spent).toBeGreaterThan(0);
				expect(spent).toBeLessThanOrEqual(cap + MAX_OUTPUT);
				// Every reservation was settled: the counter the caps read equals what the ledger recorded.
				expect((await ledger.spend.today(where, "U0", now())).community).toBe(spent);
			} finally {
				await Promise.all(stores.map((s) => s.close()));
			}
		},
	);

	// A 500 cap is under one request's input here: nothing is sent. 6,000 lets two through.
	it.skipIf(!up).each([500, 6_000])(
		"one member starts 10 lessons at once on a %i-token member cap: at most the cap plus one reply's maximum",
		async (cap) => {
			const stores = await open();
			try {
				const where = `${community}m${cap}`;
				const { budget, ledger } = twoProcesses(stores, { memberTokensPerDay: cap });
				const { requests, refused } = await startAtOnce(budget, where, 10, () => "U1");
				const spent = periodTokens(await ledger.day(where, now()));
				expect(refused).toBe(10 - requests);
				expect(refused).toBeGreaterThan(0);
				expect(spent).toBeLessThanOrEqual(cap + MAX_OUTPUT);
				expect((await ledger.spend.today(where, "U1", now())).member).toBe(spent);
			} finally {
				await Promise.all(stores.map((s) => s.close()));
			}
		},
	);
});
