/**
 * The daily spend counters cost caps reserve against: a request is granted when its input fits
 * under the cap (its output may pass it by at most its maximum), a refusal leaves nothing
 * reserved, a charge replaces its reservation with what it spent, and forget-me drops the
 * member's counter (the community's total stays).
 */

import { afterEach, describe, expect, it, vi } from "vitest";
import { AHEAD_MS, SpendCounters } from "../../../src/adapters/lesson/spend-counters.ts";
import { dayKey } from "../../../src/adapters/lesson/usage-day.ts";
import { UsageLedger } from "../../../src/adapters/lesson/usage-ledger.ts";
import { createMemoryStateStore } from "../../../src/agent/index.ts";
import type { TurnUsage } from "../../../src/core/contracts/budget.ts";

const at = new Date("2025-03-01T10:00:00Z");
const caps = { community: 1_000, member: 0 };

describe("SpendCounters", () => {
	it("grants while the input fits, refuses past cap + the maximum output, and a refusal reserves nothing", async () => {
		const spend = new SpendCounters(createMemoryStateStore());
		// 700 input + 200 output: within 1,000.
		expect(await spend.reserve("g", "u1", 900, 200, caps, at)).toEqual({ ok: true, day: "2025-03-01", tokens: 900 });
		// 250 input fits (900 + 250 = 1,150 <= 1,000 + 200): its reply may pass the cap by its maximum.
		expect(await spend.reserve("g", "u2", 250, 200, caps, at)).toMatchObject({ ok: true });
		// One more token of input does not fit.
		expect(await spend.reserve("g", "u3", 51, 0, caps, at)).toEqual({ ok: false, over: "community" });
		expect(await spend.today("g", "u3", at)).toEqual({ community: 1_150, member: 0 });
		expect(await spend.reserve("g", "u3", 150, 50, { community: 0, member: 90 }, at)).toEqual({
			ok: false,
			over: "member",
		});
		expect(await spend.today("g", "u3", at)).toEqual({ community: 1_150, member: 0 });
	});

	it("a charge replaces its reservation on the reservation's day (given back when it spent less)", async () => {
		const spend = new SpendCounters(createMemoryStateStore());
		const granted = await spend.reserve("g", "u1", 900, 200, caps, at);
		expect(granted.ok).toBe(true);
		const nextDay = new Date("2025-03-02T00:00:01Z");
		await spend.spent("g", "u1", 300, { tokens: 900, where: "2025-03-01" }, nextDay);
		expect(await spend.today("g", "u1", at)).toEqual({ community: 300, member: 300 });
		expect(await spend.today("g", "u1", nextDay)).toEqual({ community: 0, member: 0 });
		// Without a reservation (no cap was set): added whole, today.
		await spend.spent("g", "u1", 40, undefined, at);
		expect(await spend.today("g", "u1", at)).toEqual({ community: 340, member: 340 });
	});

	it("forget-me drops the member's counter through the ledger; the community's total stays", async () => {
		const store = createMemoryStateStore();
		const ledger = new UsageLedger(store);
		const usage: TurnUsage = {
			sessionId: "discord:g:t",
			by: { id: "u1" },
			agent: "teacher",
			model: "m",
			inputTokens: 70,
			outputTokens: 30,
			cachedInputTokens: 0,
		};
		await ledger.charge("g", usage, at);
		expect(await ledger.spend.today("g", "u1", at)).toEqual({ community: 100, member: 100 });
		await ledger.anonymise("g", "u1", at);
		expect(await ledger.spend.today("g", "u1", at)).toEqual({ community: 100, member: 0 });
	});
});

describe("reserved ahead: a turn step's charge reserves for the session's next request", () => {
	afterEach(() => vi.useRealTimers());
	const step = (by: string, input: number, output: number): TurnUsage => ({
		sessionId: "discord:g:t",
		by: { id: by },
		agent: "teacher",
		model: "m",
		inputTokens: input,
		outputTokens: output,
		cachedInputTokens: 0,
	});
	const ahead = (tokens: number, limits = { community: 0, member: 0 }) => ({
		sessionId: "discord:g:t",
		tokens,
		allowance: 100,
		caps: limits,
	});
	/** The day record's counters as stored (this process's reservations ahead included). */
	const stored = async (store: ReturnType<typeof createMemoryStateStore>) => {
		const record = ((await store.get(dayKey("g", "2025-03-01"))) ?? {}) as Record<string, unknown>;
		return { all: record.$all, u1: record["$m:u1"], u2: record["$m:u2"] };
	};

	it("the same member's next request uses it with no write; this process does not count it against itself", async () => {
		const store = createMemoryStateStore();
		const ledger = new UsageLedger(store);
		await ledger.spend.reserve("g", "u1", 400, 100, { community: 0, member: 0 }, at);
		await ledger.charge("g", step("u1", 300, 50), at, { tokens: 400, where: "2025-03-01" }, ahead(500));
		expect(await stored(store)).toEqual({ all: 850, u1: 850, u2: undefined });
		expect(await ledger.spend.today("g", "u1", at)).toEqual({ community: 350, member: 350 });
		const before = await store.get(dayKey("g", "2025-03-01"));
		const granted = await ledger.spend.reserve("g", "u1", 450, 100, caps, at, "discord:g:t");
		expect(granted).toEqual({ ok: true, day: "2025-03-01", tokens: 500 });
		expect(await store.get(dayKey("g", "2025-03-01"))).toEqual(before); // nothing written
		// In flight now: it counts. Its charge settles the 500 reserved.
		expect(await ledger.spend.today("g", "u1", at)).toEqual({ community: 850, member: 850 });
		await ledger.charge("g", step("u1", 420, 30), at, { tokens: 500, where: "2025-03-01" });
		expect(await stored(store)).toEqual({ all: 800, u1: 800, u2: undefined });
	});

	it("another member's request, or one larger than it, gives it back in its own reservation's write", async () => {
		const store = createMemoryStateStore();
		const ledger = new UsageLedger(store);
		await ledger.spend.reserve("g", "u1", 400, 100, { community: 0, member: 0 }, at);
		await ledger.charge("g", step("u1", 300, 50), at, { tokens: 400, where: "2025-03-01" }, ahead(500));
		expect(await ledger.spend.reserve("g", "u2", 200, 100, caps, at, "discord:g:t")).toMatchObject({ ok: true });
		expect(await stored(store)).toEqual({ all: 550, u1: 350, u2: 200 });
		await ledger.charge("g", step("u2", 150, 40), at, { tokens: 200, where: "2025-03-01" }, ahead(600));
		expect(await ledger.spend.reserve("g", "u2", 700, 100, caps, at, "discord:g:t")).toEqual({
			ok: false,
			over: "community",
		});
		// Refused: what was reserved ahead is given back too; nothing of the refused request stays.
		expect(await stored(store)).toEqual({ all: 540, u1: 350, u2: 190 });
	});

	it("is not held when it would pass a cap, and what waits longer than AHEAD_MS is given back", async () => {
		vi.useFakeTimers({ toFake: ["Date"] });
		vi.setSystemTime(at);
		const store = createMemoryStateStore();
		const ledger = new UsageLedger(store);
		await ledger.spend.reserve("g", "u1", 400, 100, { community: 0, member: 0 }, at);
		await ledger.charge("g", step("u1", 300, 50), at, { tokens: 400, where: "2025-03-01" }, ahead(800, caps));
		expect(await stored(store)).toEqual({ all: 350, u1: 350, u2: undefined }); // 1,150 > 1,000 + 100
		await ledger.charge("g", step("u1", 100, 10), at, undefined, ahead(300, caps));
		expect(await stored(store)).toEqual({ all: 760, u1: 760, u2: undefined });
		await ledger.spend.expire();
		expect(await stored(store)).toEqual({ all: 760, u1: 760, u2: undefined }); // not due yet
		vi.setSystemTime(at.getTime() + AHEAD_MS + 1);
		await ledger.spend.expire();
		expect(await stored(store)).toEqual({ all: 460, u1: 460, u2: undefined });
		// Expired and not yet given back: the request reserves anew, giving it back in the same write.
		await ledger.charge("g", step("u1", 100, 10), at, undefined, ahead(300, caps));
		vi.setSystemTime(at.getTime() + 2 * AHEAD_MS + 2);
		expect(await ledger.spend.reserve("g", "u1", 200, 100, caps, at, "discord:g:t")).toEqual({
			ok: true,
			day: "2025-03-01",
			tokens: 200,
		});
		expect(await stored(store)).toEqual({ all: 770, u1: 770, u2: undefined });
	});

	it("another process counts it; forget-me gives it back to the community's total without naming the member", async () => {
		const store = createMemoryStateStore();
		const ledger = new UsageLedger(store);
		await ledger.spend.reserve("g", "u1", 400, 100, { community: 0, member: 0 }, at);
		await ledger.charge("g", step("u1", 300, 50), at, { tokens: 400, where: "2025-03-01" }, ahead(500));
		expect(await new SpendCounters(store).today("g", "u1", at)).toEqual({ community: 850, member: 850 });
		await ledger.anonymise("g", "u1", at);
		expect(await stored(store)).toEqual({ all: 350, u1: undefined, u2: undefined });
		await ledger.spend.expire(true);
		expect(await stored(store)).toEqual({ all: 350, u1: undefined, u2: undefined });
	});
});
