/**
 * `learnharness register-commands`: registers the /lesson slash command with
 * Discord (in DISCORD_GUILD_ID only when set: instant; else globally).
 */

import { type CliIo, EXIT_CONFIG, loadConfigOrReport } from "./io.ts";

/** Registers Discord's slash commands; resolves with the exit code. */
export async function registerCommandsCommand(io: CliIo): Promise<number> {
	const config = loadConfigOrReport(io);
	if (!config) return EXIT_CONFIG;
	if (!config.discord) {
		io.stderr.write(
			"DISCORD_TOKEN is not set, so there is nothing to register.\n" +
				"Fix: set DISCORD_TOKEN (and DISCORD_GUILD_ID for instant registration in one server); see docs/discord.md.\n" +
				"Slack commands are declared in the Slack app's manifest instead (docs/slack.md).\n",
		);
		return EXIT_CONFIG;
	}
	try {
		const { registerDiscordCommands } = await import("../adapters/discord/index.ts");
		await registerDiscordCommands(config.discord);
		const where = config.discord.guildId
			? `in server ${config.discord.guildId} (available now)`
			: "globally (may take up to an hour to appear)";
		io.stdout.write(`Registered /lesson ${where}.\n`);
		return 0;
	} catch (error) {
		io.stderr.write(
			`Could not register the commands: ${error instanceof Error ? error.message : String(error)}\n` +
				"Run `learnharness doctor` to check the token.\n",
		);
		return 1;
	}
}
