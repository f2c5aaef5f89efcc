// A local speech recogniser behind the OpenAI-compatible HTTP request
// (POST /v1/audio/transcriptions, multipart, verbose_json) for audio.mjs:
// it runs Debian's pocketsphinx_continuous with a small JSGF grammar of the
// given sentences on each file it receives. With a grammar it gets
// espeak-ng's default voice word for word even over G.711, where Debian
// 12's open-vocabulary en-us model (the product's pocketsphinx path, checked
// over G.722 with the Klatt voice) hears narrowband audio badly.
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { join } from 'node:path';

export async function transcriber(dir, sentences) {
  const grammar = join(dir, 'calls.gram');
  writeFileSync(grammar, `#JSGF V1.0;\ngrammar calls;\npublic <utt> = ( ${sentences.join(' | ')} );\n`);
  const requests = [];
  let n = 0;
  const srv = createServer((req, res) => {
    const chunks = [];
    req.on('data', (d) => chunks.push(d));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const boundary = (req.headers['content-type'] ?? '').match(/boundary=("?)([^";]+)\1/)?.[2];
      let wav = null;
      if (boundary) {
        for (const part of split(body, Buffer.from('--' + boundary))) {
          const h = part.indexOf('\r\n\r\n');
          if (h > 0 && /name="file"/.test(part.subarray(0, h).toString())) wav = part.subarray(h + 4, part.length - 2);
        }
      }
      const q = { path: req.url, auth: req.headers.authorization ?? '', text: '' };
      requests.push(q);
      if (req.method !== 'POST' || !wav) { res.writeHead(400); res.end('want a multipart POST with a file'); return; }
      const path = join(dir, `rz-${n++}.wav`);
      writeFileSync(path, wav);
      let outText = '';
      try {
        outText = execFileSync('pocketsphinx_continuous', ['-infile', path, '-jsgf', grammar, '-time', 'yes', '-logfn', '/dev/null'], { encoding: 'utf8', timeout: 60000 });
      } catch (e) { res.writeHead(500); res.end(String(e)); return; }
      // With a grammar, 0.8 prints per utterance the hypothesis, then
      // "word start end confidence" lines (fillers in <...>).
      const segments = [];
      let cur = null;
      const flush = () => { if (cur?.text) segments.push(cur); cur = null; };
      for (const line of outText.split('\n')) {
        const f = line.trim().split(/\s+/);
        if (f.length !== 4 || Number.isNaN(Number(f[1])) || Number.isNaN(Number(f[2]))) { flush(); continue; }
        const [w, b, e] = [f[0], Number(f[1]), Number(f[2])];
        if (w.startsWith('<') || w.startsWith('[')) continue;
        cur ??= { start: b, end: e, text: '' };
        cur.text += (cur.text ? ' ' : '') + w.replace(/\(\d+\)$/, '');
        cur.end = e;
      }
      flush();
      q.text = segments.map((s) => s.text).join(' ');
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.end(JSON.stringify({ text: q.text, segments }));
    });
  });
  await new Promise((r) => srv.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${srv.address().port}`, requests, close: () => srv.close() };
}

function split(buf, sep) {
  const parts = [];
  let i = buf.indexOf(sep);
  while (i >= 0) {
    const j = buf.indexOf(sep, i + sep.length);
    if (j < 0) break;
    parts.push(buf.subarray(i + sep.length + 2, j)); // skip the CRLF after the boundary
    i = j;
  }
  return parts;
}
