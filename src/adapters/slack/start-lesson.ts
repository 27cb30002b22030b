/**
 * Starting a lesson from a slash command or a mention: the workspace's rules (allowed
 * channels, lessons per member per day, default mode), then the parent message, then
 * the session `slack:<team>:<channel>:<parent ts>` whose thread hosts the lesson.
 */

import type { webApi } from "@slack/bolt";
import type { LessonMode, Participant } from "../../core/contracts/events.ts";
import type { Logger } from "../../core/contracts/logger.ts";
import type { Tutor } from "../../core/contracts/tutor.ts";
import { encodeSessionId } from "../../core/session-id.ts";
import { escapeMrkdwn } from "../../render/index.ts";
import type { AnswerGate } from "../shared/answer-gate.ts";
import { channelAllowed } from "../shared/lesson-rules.ts";
import { channelNotAllowedNotice, dailyLimitNotice } from "../shared/notices.ts";
import { clip, parentMessage } from "./messages.ts";
import type { SlackState } from "./state.ts";

/** What starting needs. */
export interface StartDeps {
	client: webApi.WebClient;
	state: SlackState;
	tutor: Tutor;
	gate: AnswerGate;
	logger: Logger;
	now: () => Date;
}

/** A request to start a lesson. */
export interface StartRequest {
	teamId: string;
	channelId: string;
	/** Who asked. */
	by: Participant;
	/** Who learns (an admin may start one for a member); defaults to `by`. */
	learner?: Participant;
	mode?: LessonMode;
	topic: string;
	byAdmin: boolean;
}

/** The outcome, with a message (safe mrkdwn) for the person who asked. */
export type StartOutcome = { ok: true; sessionId: string; threadTs: string } | { ok: false; message: string };

const platformError = (error: unknown): string | undefined => {
	const data = (error as { data?: { error?: unknown } } | undefined)?.data;
	return typeof data?.error === "string" ? data.error : undefined;
};

/** Start a lesson in a new thread; never throws (failures come back as a message). */
export async function startSlackLesson(deps: StartDeps, request: StartRequest): Promise<StartOutcome> {
	const { client, state, tutor, gate, logger } = deps;
	const topic = request.topic.trim();
	if (topic === "") return { ok: false, message: "Give a topic, for example `/lesson start fractions`." };
	const learner = request.learner ?? request.by;
	const workspace = await state.workspace(request.teamId);
	if (!channelAllowed(workspace, request.channelId)) {
		const where = workspace.channels.map((c) => `<#${c}>`);
		return { ok: false, message: channelNotAllowedNotice(where, "`/lesson start <topic>`") };
	}
	const now = deps.now();
	// Counted before anything is posted (and given back on failure), so two quick starts cannot both pass a limit.
	const counted = await state.counter.take(
		request.teamId,
		learner.id,
		request.byAdmin ? 0 : workspace.lessonsPerDay,
		now,
	);
	if (!counted.ok)
		return {
			ok: false,
			message: dailyLimitNotice(counted.count, workspace.lessonsPerDay),
		};
	const giveBack = () =>
		state.counter.giveBack(request.teamId, learner.id, now).catch((error: unknown) => {
			logger.warn({ err: error, teamId: request.teamId }, "slack: could not give back a daily lesson count");
		});
	const mode = request.mode ?? workspace.defaultMode;
	const parent = parentMessage(topic, learner.id, mode);
	let threadTs: string | undefined;
	try {
		const res = await client.chat.postMessage({ channel: request.channelId, text: parent.text, blocks: parent.blocks });
		threadTs = res.ts;
	} catch (error) {
		const code = platformError(error);
		logger.warn({ err: error, channelId: request.channelId }, "slack: could not post a lesson's parent message");
		await giveBack();
		if (code === "not_in_channel" || code === "channel_not_found" || code === "is_archived")
			return {
				ok: false,
				message: "I can't post in this channel. Invite me first (`/invite @learnharness`), then try again.",
			};
		return { ok: false, message: "Slack did not accept the lesson message; please try again in a moment." };
	}
	if (!threadTs) {
		await giveBack();
		return { ok: false, message: "Slack did not return the lesson message; please try again." };
	}
	const sessionId = encodeSessionId({
		platform: "slack",
		teamId: request.teamId,
		channelId: request.channelId,
		threadTs,
	});
	const record = {
		sessionId,
		teamId: request.teamId,
		channelId: request.channelId,
		threadTs,
		learnerId: learner.id,
		mode,
		topic: clip(topic, 500),
		startedAt: now.toISOString(),
	};
	await state.saveLesson(record);
	gate.rememberLesson(sessionId, { mode, learnerId: learner.id });
	let result: Awaited<ReturnType<Tutor["startLesson"]>>;
	try {
		result = await tutor.startLesson({ sessionId, topic, learner, mode, startedBy: request.by });
	} catch (error) {
		logger.error({ err: error, sessionId }, "slack: the tutor could not start a lesson");
		result = { ok: false, code: "invalid-topic", message: "The tutor could not start the lesson; please try again." };
	}
	if (!result.ok) {
		await giveBack();
		gate.markEnded(sessionId);
		await state.saveLesson({ ...record, ended: true });
		try {
			await client.chat.update({
				channel: request.channelId,
				ts: threadTs,
				text: `Could not start: ${escapeMrkdwn(clip(result.message, 500))}`,
				blocks: [],
			});
		} catch (error) {
			logger.warn({ err: error, sessionId }, "slack: could not mark the parent message failed");
		}
		return { ok: false, message: escapeMrkdwn(result.message) };
	}
	return { ok: true, sessionId, threadTs };
}
