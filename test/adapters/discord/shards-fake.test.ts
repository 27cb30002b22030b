/**
 * The fake Discord shards as Discord does, seen by two real discord.js clients (shard 0 and
 * shard 1 of 2): `/gateway/bot` recommends the configured count, IDENTIFY carries the shard
 * pair, each client is sent only the guilds of its shard, and a guild's messages and
 * interactions reach only the connection of that guild's shard.
 */

import { Client, Events, GatewayIntentBits, type Interaction, type Message, Routes } from "discord.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { shardOfGuild } from "../../../testkit/fakes/discord/gateway.ts";
import { type FakeDiscord, startFakeDiscord } from "../../../testkit/fakes/discord.ts";

let fake: FakeDiscord;
const clients: Client[] = [];
const seen: Array<{ messages: Message[]; interactions: Interaction[] }> = [];
let second: { id: string; general: string };

beforeAll(async () => {
	fake = await startFakeDiscord({ shards: 2 });
	const firstShard = shardOfGuild(fake.guild.id, 2);
	second = fake.addGuild({ name: "Other Server", shard: [1 - firstShard, 2] });
	for (const shard of [0, 1]) {
		const client = new Client({
			intents: [GatewayIntentBits.Guilds, GatewayIntentBits.GuildMessages, GatewayIntentBits.MessageContent],
			rest: { api: fake.apiUrl },
			shards: shard,
			shardCount: 2,
		});
		const log = { messages: [] as Message[], interactions: [] as Interaction[] };
		seen.push(log);
		client.on(Events.MessageCreate, (m) => void log.messages.push(m));
		client.on(Events.InteractionCreate, (i) => void log.interactions.push(i));
		const ready = new Promise<void>((resolve) => client.once(Events.ClientReady, () => resolve()));
		await client.login(fake.token);
		await ready;
		clients.push(client);
	}
	await clients[0]!.rest.put(Routes.applicationCommands(fake.applicationId), {
		body: [{ name: "lesson", description: "Lessons", options: [{ type: 1, name: "start", description: "Start" }] }],
	});
});

afterAll(async () => {
	for (const client of clients) await client.destroy();
	await fake?.close();
});

describe("the fake Discord's sharding", () => {
	it("recommends its shard count and records the shard pair of each IDENTIFY", async () => {
		const gateway = (await clients[0]!.rest.get(Routes.gatewayBot())) as { shards: number };
		expect(gateway.shards).toBe(2);
		expect([...fake.identifiedShards].sort()).toEqual([
			[0, 2],
			[1, 2],
		]);
	});

	it("sends each shard only the guilds of that shard", () => {
		const guildShard = shardOfGuild(fake.guild.id, 2);
		expect([...clients[guildShard]!.guilds.cache.keys()]).toEqual([fake.guild.id]);
		expect([...clients[1 - guildShard]!.guilds.cache.keys()]).toEqual([second.id]);
		expect(clients[1 - guildShard]!.channels.cache.get(second.general)?.isTextBased()).toBe(true);
	});

	it("routes a guild's messages and interactions to its shard's connection only", async () => {
		const guildShard = shardOfGuild(fake.guild.id, 2);
		fake.say({ user: fake.users.learner, channelId: second.general, content: "hello from the second guild" });
		fake.say({ user: fake.users.learner, channelId: fake.ids.general, content: "hello from the first guild" });
		fake.slash({ user: fake.users.learner, channelId: second.general, subcommand: "start" });
		const other = seen[1 - guildShard]!;
		const own = seen[guildShard]!;
		// The clients' logs change without the fake knowing: poll (bounded: 5 s).
		for (let i = 0; i < 100 && !(other.messages.length && other.interactions.length && own.messages.length); i++)
			await new Promise((resolve) => setTimeout(resolve, 50));
		await new Promise((resolve) => setTimeout(resolve, 100)); // anything misrouted would have arrived by now
		expect(other.messages.map((m) => m.content)).toEqual(["hello from the second guild"]);
		expect(other.interactions.map((i) => i.guildId)).toEqual([second.id]);
		expect(own.messages.map((m) => m.content)).toEqual(["hello from the first guild"]);
		expect(own.interactions).toEqual([]);
	});

	it("closes an IDENTIFY whose shard id is not below the count (4010)", async () => {
		const { WebSocket } = await import("ws");
		const ws = new WebSocket(fake.gatewayUrl);
		const code = await new Promise<number>((resolve, reject) => {
			const timer = setTimeout(() => reject(new Error("no close within 5 s")), 5_000);
			ws.on("message", () => ws.send(JSON.stringify({ op: 2, d: { token: fake.token, intents: 0, shard: [2, 2] } })));
			ws.on("close", (c) => {
				clearTimeout(timer);
				resolve(c);
			});
		});
		expect(code).toBe(4010);
	});
});
