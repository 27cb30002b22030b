/**
 * `/lesson material add|list|remove` on Discord (a subcommand group): its options as a library command
 * (lesson/library.ts runs it, once for every platform). The file of `add` is an attachment option: Discord hosts
 * it on its CDN, and the controller downloads it from there only.
 */

import type { ChatInputCommandInteraction } from "discord.js";
import type { LibraryCommand } from "../lesson/library.ts";
import { OPTION } from "./commands.ts";
import { attachmentFile } from "./messages.ts";

/** The library subcommand as a command; undefined for a subcommand this group does not have. */
export function parseLibraryCommand(interaction: ChatInputCommandInteraction): LibraryCommand | undefined {
	const o = interaction.options;
	switch (o.getSubcommand(false)) {
		case "add": {
			const file = o.getAttachment(OPTION.file);
			const name = o.getString(OPTION.name);
			return {
				kind: "material-add",
				...(file ? { file: { file: attachmentFile(file) } } : {}),
				...(name !== null ? { name } : {}),
			};
		}
		case "list":
			return { kind: "material-list" };
		case "remove":
			return { kind: "material-remove", name: o.getString(OPTION.name) ?? "" };
		default:
			return undefined;
	}
}
