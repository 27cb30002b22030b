/**
 * The `start --shards` option and the shard child's flag, apart from shards.ts so the command line parses them
 * without loading the shard manager (and the store, model and platform code behind it).
 */

import { InvalidArgumentError } from "commander";

/** The flag the shard manager starts its children with. */
export const SHARD_PROCESS_FLAG = "--shard-process";

/** `auto` or a shard count. */
export type ShardSetting = number | "auto";

/**
 * commander's parser of `--shards`: the rules of DISCORD_SHARDS (config/variables.ts `shardSetting`: `auto`, or
 * what `Number()` reads as a whole number from 1 to 4096), without loading the configuration's schema.
 */
export function parseShardsOption(raw: string): ShardSetting {
	const text = raw.trim();
	if (text === "auto") return "auto";
	const n = Number(text);
	if (text === "" || !Number.isInteger(n) || n < 1 || n > 4096)
		throw new InvalidArgumentError("use auto or a whole number from 1 to 4096.");
	return n;
}
