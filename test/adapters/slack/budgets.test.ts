/**
 * Slack parity for cost caps: `/lesson config` sets the workspace and member
 * budgets and prices (admins only), `/lesson usage` (admins only) reports the
 * usage the engine's hook recorded, and a member over budget is refused before
 * a model request with the workspace's wording. Real Bolt over HTTP, the fake Slack and
 * a fake Tutor; usage goes in through the budget hook as the engine sends it.
 */

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createBudgetRouter } from "../../../src/adapters/lesson/lesson-budget.ts";
import { createMemoryStateStore } from "../../../src/agent/index.ts";
import type { TurnUsage } from "../../../src/core/contracts/budget.ts";
import { type FakeSlack, startFakeSlack } from "../../../testkit/fakes/slack.ts";
import { stubRenderer } from "../../../testkit/stub-renderer.ts";
import { FakeTutor } from "../lesson/fake-tutor.ts";
import { type Running, startAdapter } from "./harness.ts";

const ADA = { user: "U1", name: "ada", channel: "C1" };
const ROOT = { user: "UADMIN", name: "root", channel: "C1" };

describe("Slack token budgets and /lesson usage", { timeout: 20_000 }, () => {
	let fake: FakeSlack;
	let running: Running;
	let replies = 0;
	const budgets = createBudgetRouter();

	const command = async (text: string, actor = ADA): Promise<string> => {
		await running.sender.command("/lesson", text, actor);
		const n = ++replies;
		const reply = await fake.waitFor(() => fake.callsTo("response_url")[n - 1], `reply ${n} to "${text}"`);
		return String(reply.params.text);
	};

	beforeAll(async () => {
		fake = await startFakeSlack({
			users: [
				{ id: "U1", name: "ada" },
				{ id: "UADMIN", name: "root", is_admin: true },
			],
		});
		running = await startAdapter(fake, {
			tutor: new FakeTutor(),
			renderer: stubRenderer(undefined),
			state: createMemoryStateStore(),
			budgets,
		});
	});
	afterAll(async () => {
		await running?.adapter.stop();
		await fake?.close();
	});

	it("sets budgets and prices with the same names as on Discord (admins only: commands-contract.test.ts)", async () => {
		expect(await command("config server_tokens_per_day lots", ROOT)).toMatch(/whole number/);
		expect(await command("config price gpt", ROOT)).toMatch(/model=input,output/);
		expect(await command("config server_tokens_per_day 1000", ROOT)).toMatch(
			/Saved\.[\s\S]*Tokens per workspace: 1,000 tokens per day/,
		);
		expect(await command("config member_tokens_per_day 100", ROOT)).toMatch(/Tokens per member: 100 tokens per day/);
		expect(await command("config price demo=2,8", ROOT)).toMatch(/demo \$2\/\$8/);
	});

	it("refuses a turn over the member's budget and reports usage to admins only", async () => {
		const sessionId = `slack:${fake.teamId}:C1:1700000000.000100`;
		const turn = (input: number, output: number): TurnUsage => ({
			sessionId,
			by: { id: "U1", name: "ada" },
			agent: "prober",
			model: "demo",
			inputTokens: input,
			outputTokens: output,
			cachedInputTokens: 0,
		});
		const ask = (id: string, inputTokens: number, outputTokens = 10) =>
			budgets.budget.reserve({ sessionId, by: { id }, agent: "prober", model: "demo", inputTokens, outputTokens });
		const first = await ask("U1", 50);
		expect(first.ok).toBe(true);
		await budgets.budget.spent(turn(60, 20), first.ok ? first.reservation : undefined);
		const second = await ask("U1", 10);
		expect(second.ok).toBe(true);
		await budgets.budget.spent(turn(15, 5), second.ok ? second.reservation : undefined);
		const verdict = await ask("U1", 1);
		expect(verdict.ok).toBe(false);
		if (!verdict.ok) expect(verdict.message).toMatch(/^Today's tutor budget of <@U1> is used up \(100 tokens\)\./);
		expect((await ask("UADMIN", 10)).ok).toBe(true);
		expect(await command("usage")).toMatch(/Only admins/);
		const usage = await command("usage", ROOT);
		expect(usage).toMatch(/Today \([\d-]+, UTC\): 75 input \(0 cached\) \+ 25 output tokens · ≈ \$0\.0004/);
		expect(usage).toContain("demo: 75 in, 25 out");
		expect(usage).toContain("<@U1>: 100 tokens");
	});
});
