/**
 * REST calls per turn. A whole scripted lesson on the fake Discord, each turn
 * started by a click (a button, or a modal's submit from its card) and counted
 * by route class: the bot-token routes that count against the bot's global
 * limit of 50 requests a second (`/channels/...`: post, edit, typing) and the
 * interaction routes that do not (`/interactions/{id}/{token}/callback`,
 * `/webhooks/{app}/{token}/...`). Before this change a click turn made three or
 * more global-limited calls (typing, the card's edit, the next question's post,
 * the plan picture); now the card is edited as the click's `@original` and
 * what follows goes out as the click's follow-ups: none. Every card still
 * shows in the thread, in order; a turn started by a typed message still
 * posts through the channel.
 */

import { PNG } from "pngjs";
import { afterAll, describe, expect, it } from "vitest";
import type { FakeInteraction, RecordedCall } from "../../../testkit/fakes/discord.ts";
import { fractionsLesson } from "../../fixtures/lesson-script.ts";
import { customIds, scriptedModel, useStack, waitForAck, waitForControl } from "./helpers.ts";

const png = PNG.sync.write(new PNG({ width: 4, height: 4 }));
const model = scriptedModel(
	fractionsLesson({ greeting: "Hi! A few quick questions first.", predictOptions: ["3", "6", "9"], closing: "Bye!" }),
);
const { fake, stack } = useStack(model, { png });

/** Discord's interaction endpoints: outside the bot's global rate limit. */
const INTERACTION_ROUTE = /^\/(interactions\/\d+\/[^/]+\/callback|webhooks\/\d+\/[^/]+(\/messages\/[^/]+)?)$/;

/** The calls of a turn by class. */
function classify(calls: RecordedCall[]): { global: string[]; interaction: string[] } {
	const global: string[] = [];
	const interaction: string[] = [];
	for (const c of calls) {
		const parts = decodeURIComponent(c.path)
			.split("/")
			.map((part) => (/^\d{15,}$/.test(part) ? ":id" : part));
		if (parts[1] === "webhooks" || parts[1] === "interactions") parts[3] = ":token";
		const route = `${c.method} ${parts.join("/")}`;
		(INTERACTION_ROUTE.test(c.path) ? interaction : global).push(route);
	}
	return { global, interaction };
}

let threadId = "";
let sessionId = "";
const turns: Array<{ name: string; global: string[]; interaction: string[] }> = [];

/** Run one turn (from `act` until `done`, the tutor idle and every post out) and record its calls. */
async function turn(
	name: string,
	act: () => Promise<unknown>,
	done: () => Promise<unknown>,
): Promise<{ global: string[]; interaction: string[] }> {
	const from = fake.calls.length;
	await act();
	await done();
	await stack.tutor.idle(sessionId);
	await stack.adapter.flush(10_000);
	const counted = classify(fake.calls.slice(from));
	turns.push({ name, ...counted });
	return counted;
}

/** Click a button on the card carrying `control` and wait for its ack. */
async function click(control: string): Promise<FakeInteraction> {
	const card = await waitForControl(fake, threadId, control);
	const it = fake.click({ user: fake.users.learner, messageId: card.id, customId: control });
	await waitForAck(fake, it.token);
	return it;
}

/** Open a card's answer form and submit `text`. */
async function answer(toolCallId: string, text: string): Promise<FakeInteraction> {
	const opened = await click(`lh:open:${toolCallId}`);
	const submit = fake.submitModal({ user: fake.users.learner, opened, values: { [`lh:text:${toolCallId}`]: text } });
	await waitForAck(fake, submit.token);
	expect(submit.responseType).toBe(6);
	return submit;
}

// The calls of each turn, for docs/scaling.md ("Platform calls per turn").
afterAll(() => {
	if (process.env.LH_PRINT_CALLS)
		for (const t of turns)
			console.log(
				`${t.name}: global ${t.global.length} [${t.global.join(", ")}], interaction ${t.interaction.length} [${t.interaction.join(", ")}]`,
			);
});

describe("REST calls per lesson turn on Discord", () => {
	it("starts a lesson (a slash command: the thread, the intro and the first question go through channel routes)", async () => {
		const start = await turn(
			"start",
			async () => {
				fake.slash({
					user: fake.users.learner,
					channelId: fake.ids.general,
					subcommand: "start",
					options: { topic: "fractions" },
				});
				threadId = (await fake.waitFor(() => fake.createdThreads()[0], "the lesson thread")).id;
				sessionId = `discord:${fake.guild.id}:${threadId}`;
			},
			() => waitForControl(fake, threadId, "lh:pick:p1:"),
		);
		expect(start.global).toContain("POST /channels/:id/messages");
	});

	it("answers every click turn through the click's interaction: no global-limited call", async () => {
		const p1 = await waitForControl(fake, threadId, "lh:pick:p1:");
		const answered = (id: string) => () =>
			fake.waitFor(() => /answered/.test(fake.messages.get(id)?.text ?? ""), `the answered card ${id}`);
		const next = (control: string, card: string) => () =>
			Promise.all([waitForControl(fake, threadId, control), answered(card)()]);
		const first = await turn(
			"click p1 (probe → map, predict quiz)",
			() => click("lh:pick:p1:1"),
			next("lh:pick:t1:", p1.id),
		);
		// The clicked card became its answered state through @original; the plan and the next quiz are follow-ups.
		expect(fake.messages.get(p1.id)?.text).toMatch(/answered/);
		expect(first.interaction).toContain("PATCH /webhooks/:id/:token/messages/@original");
		expect(first.interaction).toContain("POST /webhooks/:id/:token");
		const t1 = await waitForControl(fake, threadId, "lh:pick:t1:");
		expect(t1.webhookId).toBe(fake.applicationId);

		await turn("click t1 (explain, check quiz)", () => click("lh:pick:t1:1"), next("lh:open:t2", t1.id));
		const t2 = await waitForControl(fake, threadId, "lh:open:t2");
		await turn("modal t2 (next node, predict quiz)", () => answer("t2", "10"), next("lh:open:t3", t2.id));

		for (const t of turns.slice(1)) {
			expect(t.global, t.name).toEqual([]);
			expect(t.interaction.length, t.name).toBeGreaterThan(0);
		}
		expect(fake.problems()).toEqual([]);
	});

	it("posts in the channel once a click's token no longer works (expired: Unknown Webhook)", async () => {
		const t3 = await waitForControl(fake, threadId, "lh:open:t3");
		fake.injectFault({
			method: "POST",
			path: /^\/webhooks\/\d+\/[^/]+$/,
			status: 404,
			body: { code: 10015, message: "Unknown Webhook" },
		});
		const late = await turn(
			"modal t3, its follow-up refused (recall ask)",
			() => answer("t3", "5/6"),
			async () => {
				await waitForControl(fake, threadId, "lh:open:recall");
				await fake.waitFor(() => /answered/.test(fake.messages.get(t3.id)?.text ?? ""), "the answered t3");
			},
		);
		expect(late.global).toEqual(["POST /channels/:id/messages"]);
		expect(late.interaction.filter((r) => r === "POST /webhooks/:id/:token")).toHaveLength(1);
	});

	it("posts a typed message's turn through the channel (no interaction to answer through)", async () => {
		const recall = await waitForControl(fake, threadId, "lh:open:recall");
		const typed = await turn(
			"typed answer to recall (recap, closing)",
			async () => fake.say({ user: fake.users.learner, channelId: threadId, content: "Common denominators" }),
			() => fake.waitFor(() => fake.channelMessages(threadId).some((m) => m.text.includes("Bye!")), "the closing line"),
		);
		expect(fake.messages.get(recall.id)?.text).toMatch(/answered/);
		expect(typed.interaction).toEqual([]);
		expect(typed.global.filter((r) => r === "POST /channels/:id/messages").length).toBeGreaterThan(0);
	});

	it("shows every card of the lesson in the thread, in order, and no typing call in these fast turns", () => {
		expect(turns.map((t) => t.global.length)).toEqual([3, 0, 0, 0, 1, 4]);
		const shown = fake.channelMessages(threadId);
		const order = ["p1", "t1", "e1", "t2", "t3", "recall"].map((id) =>
			shown.findIndex((m) =>
				id === "e1" ? m.text.includes("Both 3 and 6 divide 6.") : customIds(m).some((c) => c.includes(`:${id}`)),
			),
		);
		expect(order.every((i) => i >= 0)).toBe(true);
		expect([...order].sort((a, b) => a - b)).toEqual(order);
		expect(shown.some((m) => m.attachments.some((a) => a.filename === "plan.png"))).toBe(true);
		expect(shown.some((m) => m.text.includes("Recap"))).toBe(true);
		expect(fake.calls.filter((c) => c.path.endsWith("/typing"))).toEqual([]);
	});
});
