/**
 * Renders a card for both platforms and asserts every message is within that
 * platform's limits (the checkers in platform-limits.ts), for the card tests.
 */

import { expect } from "vitest";
import {
	type Card,
	type DiscordMessage,
	type SlackMessage,
	toDiscordMessages,
	toSlackMessages,
} from "../../src/render/index.ts";
import { discordMessageProblems, slackMessageProblems } from "./platform-limits.ts";

/** A card's Discord and Slack messages: at least one each, every one within limits (a failure names the message). */
export function renderChecked(card: Card): { discord: DiscordMessage[]; slack: SlackMessage[] } {
	const discord = toDiscordMessages(card);
	const slack = toSlackMessages(card);
	expect(discord.length).toBeGreaterThan(0);
	expect(slack.length).toBeGreaterThan(0);
	for (const m of discord) expect(discordMessageProblems(m), JSON.stringify(m).slice(0, 300)).toEqual([]);
	for (const m of slack) expect(slackMessageProblems(m), JSON.stringify(m).slice(0, 300)).toEqual([]);
	return { discord, slack };
}
