/**
 * Cost caps on each chat platform (the terminal has no community to budget), with the real engine: admins set
 * budgets and prices (members are refused: commands-contract.test.ts); a member over their daily budget gets
 * the notice in the thread and privately for their click, and no model request is made, while another member
 * goes on; `/lesson usage` totals equal the scripted turns' usage with an estimated cost; `/lesson status`
 * shows the lesson's tokens; the community's budget stops a new lesson's first turn. A step is sent only when
 * its estimated input (here about 3,000 tokens: the prompt and tools) fits what is left.
 */

import { describe, expect, it } from "vitest";
import { scriptedModel } from "../../../testkit/model-stream.ts";
import { CHATS, noticeOf, useChat } from "./chat.ts";

const quiz = (id: string) => ({
	name: "quiz",
	id,
	input: { question: `Question ${id}?`, options: ["yes", "no"], correctAnswer: "yes" },
});

describe.each(CHATS)("token budgets on %s", { timeout: 60_000 }, (name) => {
	const model = scriptedModel([
		// The first turn's input fits the member's 6,000; its reply passes the cap (by less than its maximum output).
		{ text: "Hi!", calls: [quiz("q1")], usage: { input: 5_000, cached: 40, output: 1_200 } },
		{ text: "Right.", calls: [quiz("q2")], usage: { input: 50, cached: 10, output: 10 } },
	]);
	const handle = useChat(name, { model, budgets: true });
	const community = name === "discord" ? "server" : "workspace";
	let sessionId = "";

	it("sets budgets and prices, refusing what does not parse", async () => {
		const { chat } = handle;
		expect((await chat.command("admin", "config price nonsense")).text).toMatch(/model=input,output/);
		// Discord's integer option carries no words (the client refuses them); Slack's text is parsed here.
		if (name === "slack")
			expect((await chat.command("admin", "config server_tokens_per_day lots")).text).toMatch(/whole number/);
		const saved = (await chat.command("admin", "config member_tokens_per_day 6000")).text;
		expect(saved).toContain("Saved.");
		expect(saved).toContain("Tokens per member: 6,000 tokens per day");
		expect(saved).toContain(`Tokens per ${community}: unlimited`);
		expect((await chat.command("admin", "config price mock-model-id=1,2")).text).toContain("mock-model-id $1/$2");
	});

	it("skips the turn of a member over budget: a private notice for the click, and no model request", async () => {
		const { chat } = handle;
		({ sessionId } = await chat.start("learner", "fractions"));
		const card = await chat.card(sessionId, "q1");
		const notice = new RegExp(
			`Today's tutor budget of <@${chat.people.learner.id}> is used up \\(6,000 tokens\\)\\. It resets at 00:00 UTC, in \\d+ (hr|min)`,
		);
		// 6,200 tokens after the first turn: over 6,000.
		expect(await noticeOf(chat, "learner", card, "lh:pick:q1:0", notice)).toMatch(notice);
		await chat.backend.tutor.idle(sessionId);
		expect(model.doStreamCalls.length).toBe(1); // no request for the turn over budget
		expect((await chat.backend.tutor.getSession(sessionId))?.pending).toEqual([]); // the answer itself was recorded
		expect((await chat.command("learner", "status", sessionId)).text).toContain(
			"Tokens: 5,000 input (40 cached) + 1,200 output",
		);
	});

	it("tells the thread too that the member's budget is used up", async () => {
		const { chat } = handle;
		// By name: the thread's notice is the tutor's text, where Slack keeps no mention (a private notice mentions).
		const notice = new RegExp(`Today's tutor budget of ${chat.people.learner.name} is used up \\(6,000 tokens\\)`);
		await chat.flush();
		await chat.waitFor(
			() => chat.posts(sessionId).find((p) => notice.test(p)),
			"the budget notice in the thread",
			5_000,
		);
	});

	it("reports usage per member and model equal to the turns' usage, with the estimated cost", async () => {
		const usage = (await handle.chat.command("admin", "usage")).text;
		const [today = "", month = ""] = usage.split("This month");
		expect(today).toMatch(/Today \([\d-]+, UTC\): 5,000 input \(40 cached\) \+ 1,200 output tokens · ≈ \$0\.0074/);
		expect(today).toContain("mock-model-id: 5,000 in, 1,200 out");
		expect(today).toContain(`<@${handle.chat.people.learner.id}>: 6,200 tokens`);
		expect(month).toContain(`<@${handle.chat.people.learner.id}>: 6,200 tokens`);
	});

	it("lets another member go on, and stops a new lesson's first turn when the community's budget is used up", async () => {
		const { chat } = handle;
		const other = await chat.start("other", "decimals");
		await chat.card(other.sessionId, "q2"); // the learner's budget is theirs alone
		expect(model.doStreamCalls.length).toBe(2);
		await chat.command("admin", "config member_tokens_per_day 0");
		await chat.command("admin", "config server_tokens_per_day 100");
		const { sessionId: third } = await chat.start("dan", "geometry");
		await chat.backend.tutor.idle(third);
		await chat.flush();
		await chat.waitFor(
			() =>
				chat.posts(third).find((p) => p.includes(`Today's tutor budget for this ${community} is used up (100 tokens)`)),
			"the community budget notice",
		);
		expect(model.doStreamCalls.length).toBe(2);
		expect(chat.problems()).toEqual([]);
	});
});
