/**
 * The agents' system prompts, kept as readable markdown next to this file.
 * They are constant strings (no dates, no per-session data) so every request
 * of a lesson starts with the same bytes and provider prompt caching applies.
 */

import { readFileSync } from "node:fs";

const read = (name: string): string => readFileSync(new URL(`./${name}`, import.meta.url), "utf8").trim();

/** The prober's system prompt (prompts/prober.md). */
export const PROBER_PROMPT: string = read("prober.md");

/** The teacher's system prompt (prompts/teacher.md). */
export const TEACHER_PROMPT: string = read("teacher.md");

/** The grader's system prompt (prompts/grader.md): the grading call of a typed answer the judge could not decide. */
export const GRADER_PROMPT: string = read("grader.md");

/** The paragraph both agents' prompts end with in a lesson grounded in the learner's material (prompts/material.md). */
export const MATERIAL_PROMPT: string = read("material.md");
