// Saves a file the API streams (export, GPX). The token must go in a header,
// so the file is fetched, held as a Blob and handed to the browser through a
// temporary object URL: a plain link would need the token in the URL.
import type { Download } from './api.js';

export function save({ blob, filename }: Download): void {
  const url = URL.createObjectURL(blob);
  const link = document.createElement('a');
  link.href = url;
  link.download = filename;
  link.hidden = true;
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
}
