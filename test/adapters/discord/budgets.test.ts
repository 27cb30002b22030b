/**
 * Cost caps end to end on the fake Discord: budgets set by admins only, a
 * member over their daily budget gets the notice (in the thread and privately
 * for a click) and no model request is made, `/lesson usage` totals equal the
 * scripted turns' usage with an estimated cost, `/lesson status` shows the
 * lesson's tokens, and the server budget stops a new lesson's first turn.
 * The caps are sized for real requests: a step is sent only when its estimated
 * input (here about 3,000 tokens: the prompt and tools) fits what is left.
 */

import { describe, expect, it } from "vitest";
import { createBudgetRouter } from "../../../src/adapters/lesson/lesson-budget.ts";
import type { FakeInteraction, FakeUser } from "../../../testkit/fakes/discord.ts";
import { type Reply, scriptedModel, useStack, waitForAck, waitForControl } from "./helpers.ts";

const quiz = (id: string) => ({
	name: "quiz",
	id,
	input: { question: `Question ${id}?`, options: ["yes", "no"], correctAnswer: "yes" },
});
const script: Reply[] = [
	// The first turn's input fits the member's 6,000; its reply passes the cap (by less than its maximum output).
	{ text: "Hi!", calls: [quiz("q1")], usage: { input: 5_000, cached: 40, output: 1_200 } },
	{ text: "Right.", calls: [quiz("q2")], usage: { input: 50, cached: 10, output: 10 } },
];

const model = scriptedModel(script);
const { fake, stack } = useStack(model, { budgets: createBudgetRouter() });

async function replyOf(it: FakeInteraction): Promise<string> {
	const m = await fake.waitFor(() => {
		const msg = it.originalMessageId ? fake.messages.get(it.originalMessageId) : undefined;
		return msg && (it.responseType === 4 || msg.editedAt) ? msg : undefined;
	}, `the reply to ${it.kind}`);
	return m.content;
}

const run = (user: FakeUser, channelId: string, subcommand: string, options?: Record<string, string | number>) =>
	fake.slash({ user, channelId, subcommand, ...(options ? { options } : {}) });

async function answer(threadId: string, id: string): Promise<FakeInteraction> {
	const card = await waitForControl(fake, threadId, `lh:pick:${id}:`);
	const click = fake.click({ user: fake.users.learner, messageId: card.id, customId: `lh:pick:${id}:0` });
	await waitForAck(fake, click.token);
	return click;
}

describe("token budgets on Discord", () => {
	it("sets budgets and prices (admins only: commands-contract.test.ts)", async () => {
		expect(await replyOf(run(fake.users.admin, fake.ids.general, "config", { price: "nonsense" }))).toMatch(
			/model=input,output/,
		);
		const saved = await replyOf(
			run(fake.users.admin, fake.ids.general, "config", { member_tokens_per_day: 6000, price: "mock-model-id=1,2" }),
		);
		expect(saved).toContain("Saved.");
		expect(saved).toContain("Tokens per member: 6,000 tokens per day");
		expect(saved).toContain("Tokens per server: unlimited");
		expect(saved).toContain("mock-model-id $1/$2");
	});

	it("skips the turn of a member over budget: a notice, and no model request", async () => {
		await replyOf(run(fake.users.learner, fake.ids.general, "start", { topic: "fractions" }));
		const thread = fake.createdThreads().find((t) => t.name === "fractions")!;
		const sessionId = `discord:${fake.guild.id}:${thread.id}`;
		const click = await answer(thread.id, "q1"); // 6,200 tokens after the first turn: over 6,000
		expect(model.doStreamCalls.length).toBe(1);
		const notice = new RegExp(
			`Today's tutor budget of <@${fake.users.learner.id}> is used up \\(6,000 tokens\\)\\. It resets at 00:00 UTC, in \\d+ (hr|min)`,
		);
		await fake.waitFor(
			() => fake.channelMessages(thread.id).find((m) => notice.test(m.content)),
			"the budget notice in the thread",
		);
		await stack.tutor.idle(sessionId);
		expect(model.doStreamCalls.length).toBe(1); // no request for the turn over budget
		const privately = await fake.waitFor(() => fake.messages.get(click.followupIds[0] ?? ""), "the private notice");
		expect(privately.content).toMatch(notice);
		// The answer itself was recorded.
		expect((await stack.tutor.getSession(sessionId))?.pending).toEqual([]);
		const status = await replyOf(run(fake.users.learner, thread.id, "status"));
		expect(status).toContain("Tokens: 5,000 input (40 cached) + 1,200 output");
	});

	it("reports usage per member and model equal to the turns' usage, with the estimated cost", async () => {
		const usage = await replyOf(run(fake.users.admin, fake.ids.general, "usage"));
		const today = usage.split("This month")[0] ?? "";
		expect(today).toMatch(/5,000 input \(40 cached\) \+ 1,200 output tokens · ≈ \$0\.0074/);
		expect(today).toContain("mock-model-id: 5,000 in, 1,200 out");
		expect(today).toContain(`<@${fake.users.learner.id}>: 6,200 tokens`);
		expect(usage.split("This month")[1]).toContain(`<@${fake.users.learner.id}>: 6,200 tokens`);
	});

	it("stops a new lesson's first turn when the server's budget is used up", async () => {
		await replyOf(
			run(fake.users.admin, fake.ids.general, "config", { member_tokens_per_day: 0, server_tokens_per_day: 100 }),
		);
		await replyOf(run(fake.users.other, fake.ids.general, "start", { topic: "decimals" }));
		const thread = fake.createdThreads().find((t) => t.name === "decimals")!;
		await stack.tutor.idle(`discord:${fake.guild.id}:${thread.id}`);
		await stack.adapter.flush();
		await fake.waitFor(
			() =>
				fake
					.channelMessages(thread.id)
					.find((m) => m.content.includes("Today's tutor budget for this server is used up (100 tokens)")),
			"the server budget notice",
		);
		expect(model.doStreamCalls.length).toBe(1);
	});
});
