/**
 * The `/lesson` commands, on each chat platform (the terminal has no commands: its review, progress and
 * forget-me are typed words, terminal/profile-commands.test.ts). With the real tutor and learning service: each
 * command's reply reaches the person who ran it privately, admin-only commands refuse members and serve admins,
 * help answers a missing subcommand, and forget-me's confirm is a card whose button routes like any card's.
 * With a stand-in tutor that records what it is asked and answers with the verdict a test sets: a start without
 * a topic, a group lesson and its status, `/lesson end`, who may end a lesson, the community's rules (admins
 * only; channels, a daily limit admins are exempt from, the default mode), a lesson for someone else, a refused
 * click, and the answer form (opened when the tutor is too slow to ask; not for a question no longer open).
 */

import { describe, expect, it } from "vitest";
import { FakeTutor } from "../lesson/fake-tutor.ts";
import { CHATS, noticeOf, quizIn, switchable, useChat } from "./chat.ts";

/** Discord's hint after "admin(s)": the permission it means. */
const HINT = String.raw`( \(Manage Server\))?`;

// Chats only: the terminal has no `/lesson` commands (its profile words: terminal/profile-commands.test.ts).
describe.each(CHATS)("/lesson commands on %s", { timeout: 60_000 }, (name) => {
	const handle = useChat(name, { model: switchable().model });

	it("answers help, and help after a missing subcommand, privately", async () => {
		const { chat } = handle;
		for (const reply of [await chat.command("learner", "help"), await chat.command("learner", "")]) {
			expect(reply.text).toContain("/lesson start");
			// What there is between lessons, on every platform: review, progress, reminders, forget-me.
			for (const sub of ["review", "progress", "remind", "forget-me"]) expect(reply.text).toContain(`/lesson ${sub}`);
			expect(reply.privateTo).toBe(chat.people.learner.id);
		}
	});

	// Discord's client offers only the registered subcommands: an unknown one arrives on Slack only.
	it.skipIf(name === "discord")("names an unknown subcommand before the help", async () => {
		expect((await handle.chat.command("learner", "frobnicate now")).text).toMatch(
			/^I don't know `frobnicate`\.\n.*\/lesson start &lt;topic&gt;/,
		);
	});

	it("gives every member's command its reply privately", async () => {
		const { chat } = handle;
		const cases: Array<[string, RegExp]> = [
			["start", /^Give the lesson a topic/],
			["end", /^There is no lesson here/],
			["status", /^There is no lesson here/],
			["review", /^Nothing|No lessons|Take a lesson/],
			["progress", /./],
			["remind on", /^Take a lesson first/],
		];
		for (const [line, expected] of cases) {
			const reply = await chat.command("learner", line);
			expect(reply.text, line).toMatch(expected);
			expect(reply.privateTo, line).toBe(chat.people.learner.id);
		}
	});

	it("refuses members the admin commands and serves admins, privately", async () => {
		const { chat } = handle;
		for (const sub of ["config", "usage", "report", "retention"]) {
			const refused = await chat.command("learner", sub);
			expect(refused.text, sub).toMatch(/^Only admins/);
			expect(refused.privateTo, sub).toBe(chat.people.learner.id);
			const served = await chat.command("admin", sub);
			expect(served.text, sub).not.toMatch(/^Only admins/);
			expect(served.privateTo, sub).toBe(chat.people.admin.id);
		}
		expect((await chat.command("admin", "config")).text).toMatch(/Lessons here/);
		expect((await chat.command("admin", "usage")).text).toMatch(/Tutor usage/);
		expect((await chat.command("admin", "report")).files.some((f) => f.name.endsWith(".csv"))).toBe(true);
	});

	it("asks forget-me's confirm with a card whose button deletes, privately", async () => {
		const { chat } = handle;
		const ask = await chat.command("learner", "forget-me");
		expect(ask.privateTo).toBe(chat.people.learner.id);
		expect(ask.controls).toEqual(["lh:pick:lh-forget-me:0"]);
		const done = /^There was nothing stored about you|^Done: your profile/;
		expect(await noticeOf(chat, "learner", ask, "lh:pick:lh-forget-me:0", done)).toMatch(done);
	});
});

describe.each(CHATS)("/lesson commands with a stand-in tutor on %s", { timeout: 60_000 }, (name) => {
	const tutor = new FakeTutor();
	const handle = useChat(name, { model: switchable().model, tutor });
	let sessionId = "";

	it("refuses a start without a topic, asking the tutor nothing", async () => {
		expect((await handle.chat.command("learner", "start")).text).toMatch(/Give the lesson a topic/);
		expect(tutor.started).toHaveLength(0);
	});

	it("starts a group lesson in a new thread, linked in the reply, and reports its status", async () => {
		const { chat } = handle;
		const { sessionId: id, reply } = await chat.start("learner", "Group theory", { group: true });
		sessionId = id;
		const link =
			name === "slack"
				? String.raw`<https://fake\.slack\.com/archives/C1/p\d+\|open its thread>`
				: `<#${id.split(":")[2]}>`;
		expect(reply.text).toMatch(new RegExp(`^Your group lesson on \\*{1,2}Group theory\\*{1,2} is ready: ${link}$`));
		expect(tutor.started).toMatchObject([
			{ sessionId, topic: "Group theory", mode: "group", learner: { id: chat.people.learner.id } },
		]);
		const status = (await chat.command("learner", "status", sessionId)).text;
		expect(status).toMatch(/Group theory.*group/s);
		if (name === "slack") expect(status).toMatch(/<https:\/\/fake\.slack\.com\/archives\/C1\/p\d+\|open the thread>/);
		expect(status).not.toMatch(/messages: |\(s\)/); // no internal counts, no "question(s)"
		expect(status).toMatch(/\nNow: .* · (no question open|\d+ questions? waiting for an answer)/);
	});

	it("ends the learner's lesson with /lesson end (unprivileged)", async () => {
		const { chat } = handle;
		expect((await chat.command("learner", "end", sessionId)).text).toMatch(/Ending/);
		expect(tutor.handled.at(-1)?.event).toEqual({
			type: "end",
			by: { id: chat.people.learner.id, name: chat.people.learner.name },
			privileged: false,
		});
	});

	it("lets the learner or an admin end a lesson from its thread, and tells anyone else", async () => {
		const { chat } = handle;
		// The tutor decides who may end (the engine refuses a member who is neither learner nor admin).
		tutor.verdict = { ok: false, code: "not-allowed", message: "Only the learner (or an admin) can end this lesson." };
		const refusal = new RegExp(`Only <@${chat.people.learner.id}> or an admin${HINT} can end this lesson`);
		try {
			await chat.send("other", { end: sessionId });
			await chat.waitFor(
				() => [...chat.notices("other"), ...chat.replies()].some((n) => refusal.test(n)),
				"the refusal to end",
			);
			expect(tutor.handled.at(-1)).toMatchObject({
				event: { type: "end", by: { id: chat.people.other.id }, privileged: false },
			});
		} finally {
			tutor.verdict = { ok: true };
		}
		const handled = tutor.handled.length;
		await chat.send("admin", { end: sessionId });
		await chat.waitFor(() => tutor.handled.length > handled, "the admin's end");
		expect(tutor.handled.at(-1)).toMatchObject({ sessionId, event: { type: "end", privileged: true } });
	});

	it("keeps the community's rules to admins, and applies channels, a daily limit and the default mode", async () => {
		const { chat } = handle;
		const here = name === "slack" ? `<#${chat.elsewhere}|study>` : chat.elsewhere;
		const only = name === "slack" ? `config channels ${here}` : `config allow-channel ${here}`;
		const anywhere = name === "slack" ? "config channels all" : `config disallow-channel ${here}`;
		expect((await chat.command("other", "config limit 1")).text).toMatch(
			new RegExp(`Only admins${HINT} can change lesson settings`),
		);
		expect((await chat.command("admin", only)).text).toMatch(new RegExp(`Saved.*<#${chat.elsewhere}>`, "s"));
		expect((await chat.command("other", "start fractions")).text).toMatch(
			new RegExp(`Lessons can.t run in this channel\\. Run \`/lesson start( &lt;topic&gt;)?\` in <#${chat.elsewhere}>`),
		);
		expect((await chat.command("admin", anywhere)).text).toMatch(/every channel/);
		expect((await chat.command("admin", "config limit 1")).text).toMatch(/1 per member per day/);
		expect((await chat.command("admin", "config mode group")).text).toMatch(/Default mode: group/);
		// Discord's integer option carries no words (the client refuses them); Slack's text is parsed here.
		if (name === "slack") expect((await chat.command("admin", "config limit lots")).text).toMatch(/whole number/);
		expect((await chat.start("other", "fractions")).reply.text).toMatch(/is ready/);
		expect(tutor.started.at(-1)?.mode).toBe("group");
		expect((await chat.command("other", "start decimals")).text).toBe(
			"You have already started 1 lesson today; the limit here is 1 lesson per member per day (UTC). Try again tomorrow.",
		);
		expect((await chat.start("admin", "decimals")).reply.text).toMatch(/is ready/); // admins are exempt
		await chat.command("admin", "config limit 0");
		await chat.command("admin", "config mode solo");
	});

	it("lets only admins start a lesson for someone else", async () => {
		const { chat } = handle;
		const { other, admin } = chat.people;
		expect((await chat.command("learner", `start <@${other.id}> algebra`)).text).toMatch(
			new RegExp(`Only admins${HINT} can start a lesson for someone else`),
		);
		const { reply } = await chat.start("admin", `<@${other.id}> algebra`);
		expect(reply.text).toMatch(new RegExp(`lesson on \\*{1,2}algebra\\*{1,2} for <@${other.id}> is ready`));
		expect(tutor.started.at(-1)).toMatchObject({
			topic: "algebra",
			learner: { id: other.id },
			startedBy: { id: admin.id },
		});
	});

	it("turns a refused click into a private notice in the lesson's thread", async () => {
		const { chat } = handle;
		const { sessionId: id } = await chat.start("learner", "photosynthesis");
		sessionId = id;
		await tutor.emit({ type: "ask", sessionId, toolCallId: "call-9", input: { question: "Why green?" } });
		await quizIn(tutor, sessionId, "call-8", ["yes", "no"]);
		const card = await chat.card(sessionId, "call-8");
		tutor.verdict = { ok: false, code: "not-pending", message: "The lesson moved on from that question." };
		try {
			const notice = /no longer open \(it was answered or replaced\)/;
			expect(await noticeOf(chat, "learner", card, "lh:pick:call-8:1", notice)).toMatch(notice);
		} finally {
			tutor.verdict = { ok: true };
		}
		if (name === "slack") expect(chat.calls("chat.postEphemeral").at(-1)?.thread_ts).toBe(card.thread);
		expect(tutor.handled.at(-1)?.event).toMatchObject({ type: "answer", toolCallId: "call-8", value: 1 });
	});

	it("opens the answer form while the tutor is too slow to say whether the question is open", async () => {
		const { chat } = handle;
		const card = await chat.card(sessionId, "call-9");
		const calls = tutor.calls;
		const handled = tutor.handled.length;
		const release = tutor.hold(); // the tutor (and so the check) is slow
		try {
			// The form must come within 3 s of the click (Slack's trigger_id, which the fake enforces; Discord's first
			// response): it opens while the tutor still has not answered.
			expect(await chat.form("learner", card, "lh:open:call-9")).toMatch(/^Your answer/);
			expect(tutor.calls).toBeGreaterThan(calls); // the check asked, and is still waiting
			expect(tutor.handled).toHaveLength(handled);
		} finally {
			release();
		}
	});

	it("does not open the answer form for a question the tutor no longer has open; opens it, labelled, once open", async () => {
		const { chat } = handle;
		const card = await chat.card(sessionId, "call-9");
		const forms = chat.forms();
		const notice = /no longer open \(it was answered or replaced\)/;
		expect(await noticeOf(chat, "learner", card, "lh:open:call-9", notice)).toMatch(notice);
		expect(chat.forms()).toBe(forms);
		// Open in the tutor's summary (with its question): the form opens, labelled with the question.
		const summary = tutor.sessions.get(sessionId);
		if (!summary) throw new Error("no summary");
		summary.pending = [{ toolCallId: "call-9", kind: "ask", input: { question: "Why do leaves look green?" } }];
		expect(await chat.form("learner", card, "lh:open:call-9")).toContain("Why do leaves look green?");
		summary.pending = [];
	});

	it("stops listening to the tutor when it stops", async () => {
		await handle.chat.restart(async () => {
			expect(tutor.subscribers()).toBe(0);
		});
	});
});
