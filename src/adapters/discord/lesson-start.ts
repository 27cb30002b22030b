/**
 * `/lesson start`: defer at once, check the guild's rules, open a public
 * thread named after the topic (or use the thread the command ran in), map it
 * to a session, start the lesson and link the thread in the reply.
 */

import {
	type APIThreadChannel,
	type Channel,
	ChannelType,
	type ChatInputCommandInteraction,
	MessageFlags,
	Routes,
	ThreadAutoArchiveDuration,
} from "discord.js";
import type { LessonMode, Participant } from "../../core/contracts/events.ts";
import { encodeSessionId } from "../../core/session-id.ts";
import { channelAllowed, isLessonMode } from "../shared/lesson-rules.ts";
import { channelNotAllowedNotice, dailyLimitNotice } from "../shared/notices.ts";
import { OPTION } from "./commands.ts";
import type { AdapterContext } from "./context.ts";
import { NOTICES } from "./notices.ts";
import { describeRestError, postMessage } from "./rest-messages.ts";
import { isAdmin, participantOf } from "./who.ts";

const THREAD_NAME_MAX = 100;

/** A thread name from a topic: one line, at most 100 characters, never empty. */
export function threadName(topic: string): string {
	const line = topic.replace(/\s+/g, " ").trim() || "Lesson";
	const chars = [...line];
	return chars.length <= THREAD_NAME_MAX
		? line
		: `${chars
				.slice(0, THREAD_NAME_MAX - 1)
				.join("")
				.trimEnd()}…`;
}

/** Where the lesson goes: an existing thread, or a new one under a text or announcement channel. */
type Place =
	| { kind: "thread"; threadId: string; parentId: string }
	| { kind: "channel"; parentId: string; threadType: ChannelType.PublicThread | ChannelType.AnnouncementThread };

async function placeOf(ctx: AdapterContext, interaction: ChatInputCommandInteraction): Promise<Place | undefined> {
	let channel: Channel | null = interaction.channel;
	if (!channel) channel = await ctx.client.channels.fetch(interaction.channelId).catch(() => null);
	if (!channel) return undefined;
	const publicThread = channel.type === ChannelType.PublicThread || channel.type === ChannelType.AnnouncementThread;
	if (channel.isThread() && channel.parentId && publicThread)
		return { kind: "thread", threadId: channel.id, parentId: channel.parentId };
	// Discord creates announcement threads (type 10) under announcement channels, public threads (11) elsewhere.
	if (channel.type === ChannelType.GuildText)
		return { kind: "channel", parentId: channel.id, threadType: ChannelType.PublicThread };
	if (channel.type === ChannelType.GuildAnnouncement)
		return { kind: "channel", parentId: channel.id, threadType: ChannelType.AnnouncementThread };
	return undefined;
}

function introText(topic: string, learner: Participant, mode: LessonMode, startedBy: Participant): string {
	const forWhom = learner.id === startedBy.id ? `<@${learner.id}>` : `<@${learner.id}> (started by <@${startedBy.id}>)`;
	const who =
		mode === "solo" ? `Solo lesson: only <@${learner.id}> answers.` : "Group lesson: anyone in this thread may answer.";
	return [
		`📚 **${topic.replace(/\s+/g, " ").trim().slice(0, 300)}**: a lesson for ${forWhom}.`,
		`${who} First a few questions to find where you are, then a lesson map. Type here any time to ask or steer; \`/lesson end\` ends it.`,
	].join("\n");
}

/** Handle `/lesson start` (the interaction is not yet acknowledged). */
export async function startLessonCommand(ctx: AdapterContext, interaction: ChatInputCommandInteraction): Promise<void> {
	await interaction.deferReply({ flags: MessageFlags.Ephemeral });
	const say = (content: string) => interaction.editReply({ content, allowedMentions: { parse: [] } });
	const guildId = interaction.guildId;
	if (!guildId) return void (await say(NOTICES.notInGuild));
	const admin = isAdmin(interaction.memberPermissions);
	const topic = (interaction.options.getString(OPTION.topic) ?? "").trim();
	if (topic === "") return void (await say("Give the lesson a topic, e.g. `/lesson start topic:fractions`."));
	const forUser = interaction.options.getUser(OPTION.for);
	if (forUser && forUser.id !== interaction.user.id && !admin) return void (await say(NOTICES.forOthersAdminsOnly));
	if (forUser?.bot) return void (await say(NOTICES.notForBots));
	const startedBy = participantOf(interaction.user, interaction.member);
	const learner = forUser ? participantOf(forUser, interaction.options.getMember(OPTION.for)) : startedBy;

	const config = await ctx.state.guildConfig(guildId);
	const asked = interaction.options.getString(OPTION.mode);
	const mode: LessonMode = isLessonMode(asked) ? asked : config.defaultMode;
	const place = await placeOf(ctx, interaction);
	if (!place) return void (await say(NOTICES.badChannel));
	if (!channelAllowed(config, place.parentId)) {
		return void (await say(
			channelNotAllowedNotice(
				config.channels.map((id) => `<#${id}>`),
				"`/lesson start`",
			),
		));
	}
	if (place.kind === "thread" && (await ctx.state.lesson(place.threadId)))
		return void (await say("This thread already has a lesson. Run `/lesson start` in a channel to open a new thread."));
	// Counted before anything is created (and given back on failure), so two quick starts cannot both pass a limit.
	const counted = await ctx.state.counter.take(guildId, learner.id, admin ? 0 : config.lessonsPerDay);
	if (!counted.ok) return void (await say(dailyLimitNotice(counted.count, config.lessonsPerDay)));
	const giveBack = () =>
		ctx.state.counter.giveBack(guildId, learner.id).catch((error: unknown) => {
			ctx.logger.warn({ err: error, guildId }, "discord: could not give back a daily lesson count");
		});

	let threadId: string;
	if (place.kind === "thread") {
		threadId = place.threadId;
		// A thread the bot did not create: join it so its messages reach the bot for sure.
		await ctx.client.rest.put(Routes.threadMembers(threadId, "@me")).catch((error: unknown) => {
			ctx.logger.warn({ err: describeRestError(error), threadId }, "discord: joining the lesson thread failed");
		});
	} else {
		try {
			const thread = (await ctx.client.rest.post(Routes.threads(place.parentId), {
				body: {
					name: threadName(topic),
					type: place.threadType,
					auto_archive_duration: ThreadAutoArchiveDuration.OneDay,
				},
				reason: `learnharness lesson for ${learner.id}`,
			})) as APIThreadChannel;
			threadId = thread.id;
		} catch (error) {
			ctx.logger.warn(
				{ err: describeRestError(error), channelId: place.parentId },
				"discord: creating a lesson thread failed",
			);
			await giveBack();
			return void (await say(
				"I could not open a thread here. Check that I may create public threads and send messages in threads in this channel.",
			));
		}
	}

	const sessionId = encodeSessionId({ platform: "discord", guildId, threadId });
	// The intro goes first in the thread: a gate in the session's queue holds the tutor's first posts until it is out.
	let decide: (ok: boolean) => void = () => {};
	const decided = new Promise<boolean>((resolve) => {
		decide = resolve;
	});
	ctx.poster.enqueue(sessionId, async () => {
		if (!(await decided)) return;
		await postMessage(ctx.client.rest, ctx.logger, threadId, {
			content: introText(topic, learner, mode, startedBy),
			allowed_mentions: { parse: [], users: [learner.id] },
		});
	});
	// Known before the tutor's first question can appear: typed messages route, and the solo check runs.
	await ctx.state.saveLesson({
		sessionId,
		guildId,
		threadId,
		parentId: place.parentId,
		learnerId: learner.id,
		mode,
		topic,
		startedAt: new Date().toISOString(),
	});
	ctx.gate.rememberLesson(sessionId, { mode, learnerId: learner.id });
	const undo = async () => {
		await giveBack();
		ctx.gate.forgetLesson(sessionId);
		await ctx.state.deleteLesson(threadId).catch(() => undefined);
	};
	let result: Awaited<ReturnType<typeof ctx.tutor.startLesson>>;
	try {
		result = await ctx.tutor.startLesson({ sessionId, topic, learner, mode, startedBy });
	} catch (error) {
		decide(false);
		await undo();
		throw error;
	}
	decide(result.ok);
	if (!result.ok) {
		await undo();
		if (place.kind === "channel")
			await ctx.client.rest.delete(Routes.channel(threadId)).catch((error: unknown) => {
				ctx.logger.warn({ err: describeRestError(error), threadId }, "discord: deleting an unused thread failed");
			});
		const why = result.code === "exists" ? "This thread already has a lesson." : result.message;
		return void (await say(`The lesson could not start: ${why}`));
	}
	ctx.logger.info({ sessionId, learnerId: learner.id, mode }, "discord: lesson started");
	const forWhom = learner.id === startedBy.id ? "" : ` for <@${learner.id}>`;
	await say(`Your ${mode} lesson on **${threadName(topic)}**${forWhom} is ready: <#${threadId}>`);
}
