/**
 * Self-test of the fake Discord with the real discord.js client: login over
 * REST + gateway, the guild cache, interactions of every kind and their
 * callbacks, multipart uploads, typed messages, heartbeats and RESUME.
 */

import {
	AttachmentBuilder,
	ButtonStyle,
	ChannelType,
	Client,
	ComponentType,
	Events,
	GatewayIntentBits,
	type Interaction,
	type Message,
	MessageFlags,
	Routes,
} from "discord.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type FakeDiscord, startFakeDiscord } from "../../../testkit/fakes/discord.ts";

let fake: FakeDiscord;
let client: Client;
const seen: Interaction[] = [];
const typed: Message[] = [];

function nextInteraction(count: number): Promise<Interaction> {
	return fake.waitFor(() => seen[count], `interaction #${count + 1}`);
}

beforeAll(async () => {
	fake = await startFakeDiscord({ heartbeatIntervalMs: 300 });
	client = new Client({
		intents: [GatewayIntentBits.Guilds, GatewayIntentBits.GuildMessages, GatewayIntentBits.MessageContent],
		rest: { api: fake.apiUrl },
	});
	client.on(Events.InteractionCreate, (i) => void seen.push(i));
	client.on(Events.MessageCreate, (m) => void (m.author.bot ? undefined : typed.push(m)));
	const ready = new Promise<void>((resolve) => client.once(Events.ClientReady, () => resolve()));
	await client.login(fake.token);
	await ready;
	await client.rest.put(Routes.applicationGuildCommands(fake.applicationId, fake.guild.id), {
		body: [
			{
				name: "lesson",
				description: "Lessons",
				options: [
					{
						type: 1,
						name: "start",
						description: "Start",
						options: [
							{ type: 3, name: "topic", description: "Topic", required: true },
							{ type: 6, name: "for", description: "For whom" },
						],
					},
				],
			},
		],
	});
});

afterAll(async () => {
	await client?.destroy();
	await fake?.close();
});

describe("fake discord with discord.js", () => {
	it("logs in and caches the guild, its channels, thread, roles and members", () => {
		const guild = client.guilds.cache.get(fake.guild.id);
		expect(guild?.name).toBe("Study Group");
		expect(guild?.channels.cache.get(fake.ids.general)?.type).toBe(ChannelType.GuildText);
		expect(guild?.channels.cache.get(fake.ids.thread)?.isThread()).toBe(true);
		expect(guild?.roles.cache.size).toBe(3);
		expect(guild?.members.cache.get(fake.users.learner.id)?.user.username).toBe("bob");
		expect(client.user?.id).toBe(fake.bot.id);
		expect(client.application?.id).toBe(fake.applicationId);
		expect(fake.gateway.identifies).toBe(1);
	});

	it("delivers a slash command with subcommand options and records the deferred reply and its edit", async () => {
		const it = fake.slash({
			user: fake.users.admin,
			channelId: fake.ids.general,
			subcommand: "start",
			options: { topic: "fractions", for: fake.users.learner.id },
		});
		const i = await nextInteraction(0);
		if (!i.isChatInputCommand()) throw new Error("expected a chat input command");
		expect(i.options.getSubcommand()).toBe("start");
		expect(i.options.getString("topic")).toBe("fractions");
		expect(i.options.getUser("for")?.id).toBe(fake.users.learner.id);
		expect(i.memberPermissions?.has("ManageGuild")).toBe(true);
		await i.deferReply({ flags: MessageFlags.Ephemeral });
		await i.editReply({ content: "done" });
		expect(it.responseType).toBe(5);
		const original = fake.messages.get(it.originalMessageId!);
		expect(original?.text).toBe("done");
		expect(original?.visibleTo).toBe(fake.users.admin.id);
		await expect(i.reply("again")).rejects.toThrow();
	});

	it("uploads attachments as multipart and records their bytes; edits messages", async () => {
		const channel = client.channels.cache.get(fake.ids.general);
		if (!channel?.isSendable()) throw new Error("not sendable");
		const bytes = Buffer.from([137, 80, 78, 71, 1, 2, 3]);
		const sent = await channel.send({
			content: "picture",
			files: [new AttachmentBuilder(bytes, { name: "plan.png" })],
			components: [
				{
					type: ComponentType.ActionRow,
					components: [{ type: ComponentType.Button, style: ButtonStyle.Primary, custom_id: "b1", label: "A" }],
				},
			],
		});
		const call = fake.calls.find((c) => c.method === "POST" && c.path === `/channels/${fake.ids.general}/messages`);
		expect(call?.files[0]?.filename).toBe("plan.png");
		expect(call?.files[0]?.data.equals(bytes)).toBe(true);
		expect(fake.messages.get(sent.id)?.attachments[0]?.data.equals(bytes)).toBe(true);
		await sent.edit({ content: "edited" });
		expect(fake.messages.get(sent.id)?.text).toBe("edited");
	});

	it("delivers button clicks, string selects and modal submits", async () => {
		const channel = client.channels.cache.get(fake.ids.general);
		if (!channel?.isSendable()) throw new Error("not sendable");
		const m = await channel.send({
			content: "q",
			components: [
				{
					type: ComponentType.ActionRow,
					components: [{ type: ComponentType.Button, style: ButtonStyle.Primary, custom_id: "open", label: "Answer" }],
				},
				{
					type: ComponentType.ActionRow,
					components: [
						{
							type: ComponentType.StringSelect,
							custom_id: "sel",
							options: [
								{ label: "one", value: "0" },
								{ label: "two", value: "1" },
							],
						},
					],
				},
			],
		});
		const click = fake.click({ user: fake.users.learner, messageId: m.id, customId: "open" });
		const b = await nextInteraction(1);
		if (!b.isButton()) throw new Error("expected a button");
		expect(b.customId).toBe("open");
		expect(b.message.id).toBe(m.id);
		await b.showModal({
			custom_id: "modal1",
			title: "Your answer",
			components: [{ type: 1, components: [{ type: 4, custom_id: "text", label: "Answer", style: 2 }] }],
		});
		expect(click.responseType).toBe(9);
		const submit = fake.submitModal({ user: fake.users.learner, opened: click, values: { text: "forty-two" } });
		const s = await nextInteraction(2);
		if (!s.isModalSubmit()) throw new Error("expected a modal submit");
		expect(s.fields.getTextInputValue("text")).toBe("forty-two");
		await s.deferUpdate();
		expect(submit.responseType).toBe(6);
		await s.followUp({ content: "not yours", flags: MessageFlags.Ephemeral });
		expect(fake.ephemeralsFor(fake.users.learner).map((x) => x.text)).toContain("not yours");

		fake.select({ user: fake.users.other, messageId: m.id, customId: "sel", values: ["1"] });
		const sel = await nextInteraction(3);
		if (!sel.isStringSelectMenu()) throw new Error("expected a select");
		expect(sel.values).toEqual(["1"]);
		expect(sel.user.id).toBe(fake.users.other.id);
		await sel.update({ content: "answered", components: [] });
		expect(fake.messages.get(m.id)?.text).toBe("answered");
	});

	it("refuses a first response after the 3 s deadline like Discord (simulated clock)", async () => {
		const it = fake.slash({
			user: fake.users.learner,
			channelId: fake.ids.general,
			subcommand: "start",
			options: { topic: "x" },
		});
		const i = await nextInteraction(4);
		it.createdAt -= 5_000;
		if (!i.isChatInputCommand()) throw new Error("expected a command");
		await expect(i.deferReply()).rejects.toThrow(/Unknown interaction/);
		expect(it.rejectedCallbacks).toBe(1);
	});

	it("delivers typed messages with content, threads created over REST, and heartbeats are acked", async () => {
		const channel = client.channels.cache.get(fake.ids.general);
		if (channel?.type !== ChannelType.GuildText) throw new Error("not text");
		const thread = await channel.threads.create({ name: "Fractions", type: ChannelType.PublicThread });
		await fake.waitFor(() => client.channels.cache.get(thread.id), "THREAD_CREATE");
		fake.say({ user: fake.users.learner, channelId: thread.id, content: "hello tutor" });
		const msg = await fake.waitFor(() => typed.find((m) => m.channelId === thread.id), "typed message");
		expect(msg.content).toBe("hello tutor");
		await fake.waitFor(() => fake.gateway.heartbeats >= 1, "a heartbeat");
	});

	it("resumes after a dropped connection and replays missed events", async () => {
		fake.dropConnections(4000);
		fake.say({ user: fake.users.learner, channelId: fake.ids.general, content: "while you were away" });
		const msg = await fake.waitFor(
			() => typed.find((m) => m.content === "while you were away"),
			"replayed message",
			15_000,
		);
		expect(msg.channelId).toBe(fake.ids.general);
		expect(fake.gateway.resumes).toBe(1);
		expect(fake.gateway.identifies).toBe(1);
	});

	it("answers 429 with retry-after and discord.js retries", async () => {
		fake.rateLimitNext(/\/channels\/\d+\/messages$/, 0.05);
		const channel = client.channels.cache.get(fake.ids.other);
		if (!channel?.isSendable()) throw new Error("not sendable");
		await channel.send("after a rate limit");
		const posts = fake.calls.filter((c) => c.path === `/channels/${fake.ids.other}/messages`);
		expect(posts.map((c) => c.status)).toEqual([429, 200]);
		expect(fake.problems()).toEqual([]);
	});
});
