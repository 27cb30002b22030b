/**
 * The daily spend counters cost caps reserve against: a request is granted when its input fits
 * under the cap (its output may pass it by at most its maximum), a refusal leaves nothing
 * reserved, a charge replaces its reservation with what it spent, and forget-me drops the
 * member's counter (the community's total stays).
 */

import { describe, expect, it } from "vitest";
import { SpendCounters } from "../../../src/adapters/lesson/spend-counters.ts";
import { UsageLedger } from "../../../src/adapters/lesson/usage-ledger.ts";
import { createMemoryStateStore } from "../../../src/agent/index.ts";
import type { TurnUsage } from "../../../src/core/contracts/budget.ts";

const at = new Date("2025-03-01T10:00:00Z");
const caps = { community: 1_000, member: 0 };

describe("SpendCounters", () => {
	it("grants while the input fits, refuses past cap + the maximum output, and a refusal reserves nothing", async () => {
		const spend = new SpendCounters(createMemoryStateStore());
		// 700 input + 200 output: within 1,000.
		expect(await spend.reserve("g", "u1", 900, 200, caps, at)).toEqual({ ok: true, day: "2025-03-01" });
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
