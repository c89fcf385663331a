// Takes the frames off PostgreSQL's binary COPY format for a one-column
// result: the 19-byte header (signature, flags, extension length), then per
// row a field count (int16) and the field's length (int32, -1 for NULL) before
// its bytes, and a field count of -1 at the end. Chunks may cut anywhere; the
// field bytes come out as views of the chunks (no copy), NULLs are skipped.

const SIGNATURE = Buffer.from('PGCOPY\n\xff\r\n\0', 'latin1');
const HEADER_BYTES = SIGNATURE.length + 8;

export class BinaryCopyFields {
  /** Bytes of a frame (header, field count and length) cut by a chunk's end. */
  private pending = Buffer.alloc(0);
  private headerDone = false;
  /** Bytes of the current field still to come. */
  private fieldLeft = 0;
  private ended = false;

  /** Whether the trailer was seen. */
  get done(): boolean {
    return this.ended;
  }

  /** Feeds one chunk; `emit` gets each piece of field bytes in order. */
  push(chunk: Buffer, emit: (bytes: Buffer) => void): void {
    let at = 0;
    while (at < chunk.length) {
      if (this.fieldLeft > 0) {
        const n = Math.min(this.fieldLeft, chunk.length - at);
        emit(chunk.subarray(at, at + n));
        this.fieldLeft -= n;
        at += n;
        continue;
      }
      if (this.ended) throw new Error('COPY data after its trailer');
      // A frame: the header once, then a field count and (for a row) a length.
      const need = !this.headerDone ? HEADER_BYTES : 2;
      let frame: Buffer;
      if (this.pending.length === 0 && chunk.length - at >= need + 4) {
        frame = chunk.subarray(at);
      } else {
        frame = Buffer.concat([this.pending, chunk.subarray(at, at + need + 4 - this.pending.length)]);
      }
      if (frame.length < need) {
        this.pending = Buffer.from(frame);
        return;
      }
      if (!this.headerDone) {
        if (!frame.subarray(0, SIGNATURE.length).equals(SIGNATURE)) throw new Error('not a binary COPY stream');
        const extension = frame.readUInt32BE(SIGNATURE.length + 4);
        if (extension !== 0) throw new Error('binary COPY header extensions are not supported');
        this.headerDone = true;
        at += HEADER_BYTES - this.pending.length;
        this.pending = Buffer.alloc(0);
        continue;
      }
      const fields = frame.readInt16BE(0);
      if (fields === -1) {
        this.ended = true;
        at += 2 - this.pending.length;
        this.pending = Buffer.alloc(0);
        continue;
      }
      if (fields !== 1) throw new Error(`expected one column per COPY row, got ${fields}`);
      if (frame.length < 6) {
        this.pending = Buffer.from(frame);
        return;
      }
      const length = frame.readInt32BE(2);
      at += 6 - this.pending.length;
      this.pending = Buffer.alloc(0);
      if (length > 0) this.fieldLeft = length;
    }
  }
}
