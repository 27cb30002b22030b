/**
 * What usage costs the store per model request: after a turn step, one write (the step's charge
 * reserved ahead for the next request), whether cost caps are on or off and however many members
 * were charged today; the verdict after a click reads nothing this process just wrote. Records of earlier versions still count (usage
 * and spend), and a member forgotten in another process is not written back by a charge that
 * skipped the tombstone.
 */

import { describe, expect, it } from "vitest";
import { markForgotten } from "../../../src/adapters/lesson/forgotten-members.ts";
import {
	budgetVerdict,
	createLessonBudget,
	type LessonBudgetOptions,
} from "../../../src/adapters/lesson/lesson-budget.ts";
import { LessonState } from "../../../src/adapters/lesson/lesson-state.ts";
import { ANONYMOUS_MEMBER, memberTokens, UsageLedger } from "../../../src/adapters/lesson/usage-ledger.ts";
import { createMemoryStateStore } from "../../../src/agent/index.ts";
import type { TurnUsage } from "../../../src/core/contracts/budget.ts";
import { silentLogger } from "../../../src/core/contracts/logger.ts";
import { counted } from "../../../testkit/counted.ts";

const at = new Date("2025-03-01T10:00:00Z");
const sessionId = "discord:g:thread-1";

const usage = (id: string, input: number, output: number, name?: string): TurnUsage => ({
	sessionId,
	by: { id, ...(name ? { name } : {}) },
	agent: "teacher",
	model: "m1",
	inputTokens: input,
	outputTokens: output,
	cachedInputTokens: 0,
});

/** The store calls of one model request (reserve, then spent) and of the verdict after a click. */
async function requestCalls(caps: boolean): Promise<{ request: string[]; verdict: string[] }> {
	const { proxy: store, calls } = counted(createMemoryStateStore());
	const state = new LessonState(store, caps ? { memberTokensPerDay: 1_000_000, serverTokensPerDay: 10_000_000 } : {});
	const ledger = new UsageLedger(store);
	const o: LessonBudgetOptions = {
		state,
		ledger,
		style: { startHint: "`/lesson start`" },
		place: "server",
		logger: silentLogger,
		now: () => at,
	};
	const budget = createLessonBudget(o);
	for (let i = 0; i < 20; i++) await ledger.charge("g", usage(`member-${i}`, 100, 10, `M ${i}`), at);
	const request = async () => {
		const held = await budget.reserve({
			sessionId,
			by: { id: "u1" },
			agent: "teacher",
			model: "m1",
			inputTokens: 50,
			outputTokens: 20,
		});
		expect(held.ok).toBe(true);
		await budget.spent(usage("u1", 40, 10, "Ada"), held.ok ? held.reservation : undefined);
	};
	await request(); // warms the rules and the member's tombstone check
	calls.length = 0;
	await request();
	const request2 = [...calls];
	calls.length = 0;
	expect((await budgetVerdict(o, sessionId, { id: "u1" })).ok).toBe(true);
	return { request: request2, verdict: [...calls] };
}

describe("usage on the store, per model request", () => {
	it("a request after a turn step is one write (reserved ahead), caps on or off, 20 members charged; the verdict reads nothing", async () => {
		const off = await requestCalls(false);
		const on = await requestCalls(true);
		expect(off.request).toEqual(["updateFields"]);
		expect(on.request).toEqual(off.request);
		expect(on.verdict).toEqual([]);
		expect(off.verdict).toEqual([]);
	});

	it("earlier versions' records still count: slot counters, one-value records and spend counters", async () => {
		const store = createMemoryStateStore();
		const base = "usage:g:2025-03-01";
		await store.set(`${base}#n`, 1);
		await store.set(`${base}#s:1`, { member: "u1", model: "m1" });
		await store.set(`${base}#c:1:input`, 30);
		await store.set(`${base}#c:1:output`, 3);
		await store.set(`${base}#name:u1`, "Ada");
		// The month's record held the day's tokens too (earlier versions wrote both).
		await store.set("usage:g:2025-03", {
			u1: { name: "Ada", models: { m1: { input: 30, output: 3, cached: 0 } } },
			u2: { name: "Bo", models: { m2: { input: 7, output: 1, cached: 0 } } },
		});
		await store.set("spend:g:2025-03-01#all", 500);
		await store.set("spend:g:2025-03-01#m:u1", 400);
		const ledger = new UsageLedger(store);
		await ledger.charge("g", usage("u1", 10, 1, "Ada L."), at);
		const day = await ledger.day("g", at);
		expect(day.u1).toEqual({ name: "Ada L.", models: { m1: { input: 40, output: 4, cached: 0 } } });
		const month = await ledger.month("g", at);
		expect(memberTokens(month.u1)).toBe(44);
		expect(month.u2?.name).toBe("Bo");
		expect(await ledger.spend.today("g", "u1", at)).toEqual({ community: 511, member: 411 });
		expect(await ledger.spend.reserve("g", "u1", 100, 0, { community: 0, member: 450 }, at)).toEqual({
			ok: false,
			over: "member",
		});
		await ledger.anonymise("g", "u1", at);
		const after = await ledger.month("g", at);
		expect(Object.keys(after).sort()).toEqual([ANONYMOUS_MEMBER, "u2"]);
		expect(memberTokens(after[ANONYMOUS_MEMBER])).toBe(44);
		expect(await store.get("spend:g:2025-03-01#m:u1")).toBeUndefined();
	});

	it("a charge in another process that skipped the tombstone moves itself to the anonymous bucket", async () => {
		const store = createMemoryStateStore();
		const [a, b] = [new UsageLedger(store), new UsageLedger(store)];
		await b.charge("g", usage("u1", 10, 1, "Ada"), at); // b now charges u1 unread for a minute
		await markForgotten(store, "u1");
		await a.anonymise("g", "u1", at);
		await b.charge("g", usage("u1", 5, 5, "Ada"), at);
		const record = JSON.stringify(await store.get("usage:g:2025-03-01#d"));
		expect(record).not.toMatch(/u1|Ada/);
		expect(memberTokens((await a.day("g", at))[ANONYMOUS_MEMBER])).toBe(21);
		await b.charge("g", usage("u1", 1, 1, "Ada"), at); // the next reads the tombstone
		expect(JSON.stringify(await store.get("usage:g:2025-03-01#d"))).not.toMatch(/u1|Ada/);
	});
});
