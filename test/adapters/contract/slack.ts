/**
 * Slack under the contract suite: real Bolt over signed HTTP against the fake Slack, with the real tutor (or the
 * test's stand-in), the learning service and SQLite files. A `/lesson` line is sent as typed.
 */

import type { BudgetRouter } from "../../../src/adapters/lesson/lesson-budget.ts";
import { type FakeMessage, type FakeSlack, startFakeSlack } from "../../../testkit/fakes/slack.ts";
import { slackWire } from "../../../testkit/fixtures/slack/requests.ts";
import type { TestClock } from "../../fixtures/profile-stack.ts";
import { type Running, startAdapter } from "../slack/harness.ts";
import { openSide, type PlatformChat } from "./engine-side.ts";
import type { Card, Chat, ChatOptions, Delivery, Person, PersonKey } from "./types.ts";

/** All texts of Slack blocks, in order (section, context and button texts). */
function slackText(message: { text?: string; blocks?: unknown }): string {
	const out: string[] = [message.text ?? ""];
	const walk = (v: unknown): void => {
		if (Array.isArray(v)) v.forEach(walk);
		else if (v && typeof v === "object")
			for (const [k, x] of Object.entries(v)) k === "text" && typeof x === "string" ? out.push(x) : walk(x);
	};
	walk(message.blocks);
	return out.join("\n");
}

type Block = {
	type: string;
	alt_text?: string;
	slack_file?: { id?: string };
	elements?: Array<{ action_id?: string; text?: { text?: string } }>;
};
const blocksOf = (blocks: unknown) => (blocks ?? []) as Block[];
/** The action elements of Slack blocks. */
const slackControls = (blocks: unknown) =>
	blocksOf(blocks)
		.filter((b) => b.type === "actions")
		.flatMap((b) => b.elements ?? []);

/** Open Slack for a contract (see chat.ts). */
export async function onSlack(
	options: ChatOptions,
	clock: TestClock,
	budgets: BudgetRouter | undefined,
): Promise<Chat> {
	const ids: Record<PersonKey, Person> = {
		learner: { id: "U1", name: "ada" },
		other: { id: "U2", name: "cy" },
		admin: { id: "UADMIN", name: "root" },
		dan: { id: "U4", name: "dan" },
	};
	const slackLocale = (l: string | undefined) => (l ? ({ de: "de-DE", es: "es-ES", ja: "ja-JP" }[l] ?? l) : "en-US");
	const fake: FakeSlack = await startFakeSlack({
		users: (Object.keys(ids) as PersonKey[]).map((k) => ({
			...ids[k],
			locale: slackLocale(options.locales?.[k]),
			...(k === "admin" ? { is_admin: true } : {}),
		})),
	});
	const side = await openSide<Running>("slack", options, clock, budgets, {
		start: (deps) => startAdapter(fake, deps),
		stop: (process) => process.adapter.stop(),
		closeFake: () => fake.close(),
	});
	const running = () => side.processes()[0]!;
	const sender = () => running().sender;
	const actor = (who: PersonKey, channel = "C1") => ({ user: ids[who].id, name: ids[who].name, channel });
	const parentOf = (sessionId: string) => sessionId.split(":")[3] ?? "";
	const cardOf = (m: FakeMessage): Card => ({
		ref: m.ts,
		where: m.channel,
		thread: m.threadTs,
		text: slackText(m),
		controls: slackControls(m.blocks).map((e) => String(e.action_id)),
		labels: slackControls(m.blocks).map((e) => e.text?.text ?? ""),
		files: [],
		pictures: blocksOf(m.blocks)
			.filter((b) => b.type === "image")
			.map((b) => ({
				alt: b.alt_text ?? "",
				bytes: fake.uploads.find((u) => u.fileId === b.slack_file?.id)?.bytes,
			})),
	});
	const parents = () => [...fake.messages.values()].filter((m) => m.channel === "C1" && !m.threadTs);
	const reply = async (who: PersonKey, delivery: Delivery, what: string): Promise<Card> => {
		const before = fake.calls.length;
		const uploads = fake.uploads.length;
		await chat.send(who, delivery);
		const got = await fake.waitFor(
			() =>
				fake.calls
					.slice(before)
					.find(
						(c) =>
							(c.method === "response_url" && !c.replaced) ||
							(c.method === "chat.postEphemeral" && c.params.user === ids[who].id),
					),
			what,
		);
		// A file goes to the person's DM: it arrives soon after the reply that announces it.
		return {
			ref: sender().nextTs(),
			where: "C1",
			text: String(got.params.text ?? ""),
			controls: slackControls(got.params.blocks).map((e) => String(e.action_id)),
			labels: slackControls(got.params.blocks).map((e) => e.text?.text ?? ""),
			privateTo:
				got.method === "chat.postEphemeral" || got.params.response_type === "ephemeral" ? ids[who].id : undefined,
			files: fake.uploads
				.slice(uploads)
				.filter((u) => u.channelId === `D${ids[who].id}`)
				.map((u) => ({ name: u.filename, bytes: u.bytes })),
			pictures: [],
		};
	};
	const FORM = "application/x-www-form-urlencoded";
	const interactive = (payload: Record<string, unknown>) =>
		new URLSearchParams({ payload: JSON.stringify(payload) }).toString();
	/** The signed body of a delivery, its content type, and whether Slack retries it (commands and events). */
	const bodyOf = (who: PersonKey, d: Delivery): [string, string, boolean] => {
		const s = sender();
		const event = (e: Record<string, unknown>) =>
			JSON.stringify(s.eventPayload({ ts: s.nextTs(), channel: "C1", ...e }));
		if ("command" in d) return [s.commandBody("/lesson", d.command, actor(who)), FORM, true];
		if ("say" in d) {
			const text = slackWire(d.say);
			return [
				event({ type: "message", user: ids[who].id, text, thread_ts: parentOf(d.sessionId) }),
				"application/json",
				true,
			];
		}
		if ("mention" in d) {
			const file =
				d.file &&
				fake.shareFile({
					name: d.file.name,
					mimetype: d.file.name.endsWith(".pdf") ? "application/pdf" : "text/plain",
					data: Buffer.from(d.file.data),
				});
			return [
				event({
					type: "app_mention",
					user: ids[who].id,
					text: `<@U0BOT> ${slackWire(d.mention)}`,
					...(file ? { files: [file] } : {}),
				}),
				"application/json",
				true,
			];
		}
		if ("end" in d)
			return [interactive(s.actionPayload(actor(who), parentOf(d.end), { action_id: "lh-slack:end" })), FORM, false];
		if ("submit" in d) {
			const input = d.submit.replace("lh:open:", "lh:text:");
			const opened = fake.callsTo("views.open").findLast((c) => JSON.stringify(c.params.view).includes(input));
			if (!opened) throw new Error(`the form of ${d.submit} was never opened`);
			const values = { [input]: { [input]: { type: "plain_text_input", value: d.text } } };
			const view = opened.params.view as Record<string, unknown>;
			return [interactive(s.viewSubmissionPayload(actor(who, d.card.where), view, values)), FORM, false];
		}
		const action = d.click.startsWith("lh:select:")
			? { action_id: d.click, type: "static_select" as const, selected: "0" }
			: { action_id: d.click };
		return [interactive(s.actionPayload(actor(who, d.card.where), d.card.ref, action)), FORM, false];
	};
	const chat: PlatformChat = {
		name: "slack",
		community: fake.teamId,
		channel: "C1",
		elsewhere: "C9",
		people: ids,
		async start(who, topic, { group, language, material } = {}) {
			const before = parents().length;
			const words = [...(language ? [`language:${language}`] : []), ...(group ? ["--group"] : []), topic];
			// Slash commands carry no files: material comes with a mention that shares the PDF (its notice is the reply).
			const delivery: Delivery = material
				? { mention: `${group ? "--group " : ""}${topic}`, file: material }
				: { command: `start ${words.join(" ")}` };
			const said = await reply(who, delivery, "the start reply");
			const parent = await fake.waitFor(() => parents()[before], `the parent of ${topic}`);
			return { sessionId: `slack:${fake.teamId}:C1:${parent.ts}`, reply: said };
		},
		// A file comes with a mention that shares it (slash commands carry none): `material add <name>`.
		command: (who, line, _sessionId, file) =>
			reply(who, file ? { mention: line, file } : { command: line }, `the reply to ${line}`),
		say: async (who, sessionId, say) => void (await chat.send(who, { say, sessionId })),
		async send(who, d, copies = 1) {
			const [body, type, retried] = bodyOf(who, d);
			const timestampSec = Math.floor(Date.now() / 1000);
			const processes = side.processes();
			const statuses: number[] = [];
			// The same signed bytes each time, to the processes in turn (sequential: a copy racing the first is answered 500).
			for (let i = 0; i < copies; i++) {
				const headers = retried && i > 0 ? { "x-slack-retry-num": String(i) } : undefined;
				const to = processes[i % processes.length]!.sender;
				statuses.push((await to.raw(body, type, { timestampSec, ...(headers ? { headers } : {}) })).status);
			}
			return statuses;
		},
		threads: () => parents().length,
		forms: () => fake.callsTo("views.open").length,
		replies: () => fake.callsTo("response_url").map((c) => String(c.params.text ?? "")),
		card: (sessionId, toolCallId, nth = 0) =>
			fake.waitFor(
				() =>
					[...fake.messages.values()]
						.filter((m) => m.threadTs === parentOf(sessionId))
						.map(cardOf)
						.filter((c) => c.controls.some((id) => id.split(":")[2] === toolCallId))[nth],
				`card ${nth} of ${toolCallId}`,
				20_000,
			),
		view: (card) => {
			const m = fake.messages.get(card.ref);
			return m ? cardOf(m) : card;
		},
		click: async (who, card, click) => void (await chat.send(who, { click, card })),
		async form(who, card, control, text) {
			const opens = chat.forms();
			await chat.send(who, { click: control, card });
			const opened = await fake.waitFor(() => fake.callsTo("views.open")[opens], "the answer form");
			if (text !== undefined) await chat.send(who, { submit: control, card, text });
			const view = opened.params.view as { title?: { text?: string }; blocks?: unknown };
			return slackText({ text: view.title?.text ?? "", blocks: view.blocks });
		},
		posts: (sessionId) =>
			[...fake.messages.values()].filter((m) => m.threadTs === parentOf(sessionId)).map((m) => slackText(m)),
		find: (pattern) => [...fake.messages.values()].map(cardOf).filter((c) => pattern.test(c.text)),
		notices: (who) =>
			fake
				.callsTo("chat.postEphemeral")
				.filter((c) => c.params.user === ids[who].id)
				.map((c) => String(c.params.text ?? "")),
		waitFor: (check, what, timeoutMs = 15_000) => fake.waitFor(check, what, timeoutMs),
		sendReminders: () => running().adapter.sendReminders(),
		async flush() {},
		calls: (method) => fake.calls.filter((c) => c.method.includes(method)).map((c) => c.params),
		problems: () => [
			...fake.limitProblems(),
			...fake.calls.filter((c) => c.ok === false).map((c) => `${c.method} ${c.error}`),
		],
	};
	return side.chat(chat);
}
