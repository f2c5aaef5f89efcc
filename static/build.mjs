// Builds the front end into static/: bundles src/phone.ts with esbuild and
// copies htmx, its SSE extension and idiomorph from node_modules into vendor/.
// With --check it builds into memory and fails when the committed files differ
// (CI runs `npm run check`).
import * as esbuild from 'esbuild';
import { readFileSync, writeFileSync, existsSync, mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, '..');
const check = process.argv.includes('--check');

const outputs = new Map();
outputs.set(join(here, 'vendor/htmx.min.js'), readFileSync(join(root, 'node_modules/htmx.org/dist/htmx.min.js'), 'utf8'));
outputs.set(join(here, 'vendor/sse.js'), readFileSync(join(root, 'node_modules/htmx-ext-sse/dist/sse.js'), 'utf8'));
// idiomorph (pinned in package.json) with its htmx extension "morph": the
// live-call bar morphs in place so focus and open panels survive updates.
outputs.set(join(here, 'vendor/idiomorph-ext.min.js'), readFileSync(join(root, 'node_modules/idiomorph/dist/idiomorph-ext.min.js'), 'utf8'));

const res = await esbuild.build({
  entryPoints: { phone: join(here, 'src/phone.ts'), sw: join(here, 'src/sw.ts'), pcm: join(here, 'src/pcm-worklet.ts') },
  bundle: true,
  format: 'iife',
  target: ['chrome110', 'firefox115'],
  minify: false,
  legalComments: 'none',
  write: false,
  outdir: join(here, 'dist'),
  logLevel: 'warning',
});
for (const f of res.outputFiles) outputs.set(f.path, f.text);

let stale = [];
for (const [path, text] of outputs) {
  if (check) {
    const old = existsSync(path) ? readFileSync(path, 'utf8') : null;
    if (old !== text) stale.push(path.slice(root.length + 1));
  } else {
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, text);
  }
}
if (stale.length) {
  console.error('built front-end files are not current (run npm run build and commit):\n  ' + stale.join('\n  '));
  process.exit(1);
}
console.log(check ? 'static: built files are current' : 'static: built ' + outputs.size + ' files');
