// Piscina task of /v1/summary: the aggregation and the markdown page, off the
// HTTP thread. The sleep samples arrive as transferred typed arrays.
import { renderSummaryMarkdown } from '../src/core/summary-markdown.js';
import { buildSummary, type Summary, type SummaryInput } from '../src/core/summary.js';

export interface SummarizeTask {
  input: SummaryInput;
  markdown: boolean;
}

export function summarize(task: SummarizeTask): { summary: Summary; markdown: string | null } {
  const summary = buildSummary(task.input);
  return { summary, markdown: task.markdown ? renderSummaryMarkdown(summary) : null };
}
