/**
 * A German lesson's struggle words and an admin's vote settings on the fake
 * Discord: a wrong check turns the card into "Nicht ganz" with German help
 * buttons (the probe's quiz has "Weiß nicht" and "Hinweis" too), and a German
 * admin's `/lesson config vote_seconds:` reply (the vote line included) and a
 * German member's refusal (the permission name) are German.
 */

import { describe, expect, it } from "vitest";
import { assessmentInput, planMermaid, probeQuiz } from "../../fixtures/lesson-script.ts";
import { scriptedModel, useStack, waitForAck, waitForControl } from "./helpers.ts";

const check = {
	name: "quiz",
	id: "c1",
	input: {
		type: "check",
		nodeId: "unlike",
		question: "Was ist 1/2 + 1/4?",
		options: ["2/6", "3/4", "1/6"],
		correctAnswer: "3/4",
	},
};
const model = scriptedModel([
	{ calls: [{ name: "quiz", input: probeQuiz, id: "p1" }] },
	{ calls: [{ name: "probe_done", input: assessmentInput, id: "pd" }] },
	{ calls: [{ name: "plan_init", input: { mermaid: planMermaid }, id: "plan" }] },
	{ text: "Jetzt prüfen wir es.", calls: [check] },
	{ text: "Gut." },
]);
const { fake, stack } = useStack(model);

type Row = { components: Array<{ label?: string; custom_id?: string }> };
const labels = (message: { components?: unknown }): string[] =>
	((message.components ?? []) as Row[]).flatMap((row) => row.components.map((c) => c.label ?? ""));

/** The final text of a command's reply (ephemeral or an edited deferred reply). */
async function replyOf(it: ReturnType<typeof fake.slash>): Promise<string> {
	const m = await fake.waitFor(() => {
		const msg = it.originalMessageId ? fake.messages.get(it.originalMessageId) : undefined;
		return msg && (it.responseType === 4 || msg.editedAt) ? msg : undefined;
	}, `the reply to ${it.kind}`);
	return m.content;
}

describe("a German lesson's struggle words and vote settings on Discord", () => {
	it("a wrong check: the card says Nicht ganz, with German help buttons", async () => {
		const german = { ...fake.users.learner, locale: "de" };
		fake.slash({ user: german, channelId: fake.ids.general, subcommand: "start", options: { topic: "Brüche" } });
		const thread = await fake.waitFor(() => fake.createdThreads()[0], "the thread");
		const sessionId = `discord:${fake.guild.id}:${thread.id}`;
		const p1 = await waitForControl(fake, thread.id, "lh:pick:p1:");
		// The probe's help row: Not sure and Hint, in German.
		expect(labels(p1)).toContain("🤷 Weiß nicht");
		expect(labels(p1)).toContain("💡 Hinweis");
		const first = fake.click({ user: german, messageId: p1.id, customId: "lh:pick:p1:1" });
		await waitForAck(fake, first.token);
		const c1 = await waitForControl(fake, thread.id, "lh:pick:c1:");
		expect(labels(c1)).toEqual(expect.arrayContaining(["💡 Hinweis", "🤷 Weiß nicht"]));
		const wrong = fake.click({ user: german, messageId: c1.id, customId: "lh:pick:c1:0" });
		await waitForAck(fake, wrong.token);
		await fake.waitFor(() => fake.messages.get(c1.id)?.content.includes("Nicht ganz") || undefined, "Nicht ganz");
		const missed = fake.messages.get(c1.id);
		expect(missed?.content).not.toContain("Not quite");
		expect(labels(missed ?? {})).toEqual(["🔁 Noch einmal", "💡 Hinweis", "👀 Antwort zeigen"]);
		await stack.tutor.idle(sessionId);
	});

	it("a German admin's vote settings reply and a German member's refusal are German", async () => {
		const admin = { ...fake.users.admin, locale: "de" };
		const saved = await replyOf(
			fake.slash({
				user: admin,
				channelId: fake.ids.general,
				subcommand: "config",
				options: { vote_seconds: 30, vote_names: true },
			}),
		);
		expect(saved).toContain("Gespeichert.");
		expect(saved).toContain(
			"• Gruppenabstimmungen: offen 30 s nach der ersten Stimme; das Ergebnis nennt die Abstimmenden",
		);
		expect(saved).not.toContain("Group votes");
		const member = { ...fake.users.other, locale: "de" };
		const denied = await replyOf(
			fake.slash({ user: member, channelId: fake.ids.general, subcommand: "config", options: { vote_seconds: 20 } }),
		);
		expect(denied).toContain("(Server verwalten)");
		expect(denied).not.toContain("Manage Server");
	});
});
