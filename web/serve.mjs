// A small static file server for dist/ (scripts/demo and the browser tests use it).
//
//   node web/serve.mjs [--port N] [--host H] [--dir DIR] [--isolate]
//
// --isolate adds the COOP/COEP headers that make the page cross-origin isolated: the lab worker loads the
// threaded module and runs on every core, and the clock ticks in 5 µs instead of 0.1 ms (scripts/demo
// sends them). Most static hosts cannot send them; there the page's service worker adds them
// (web/src/isolation/), or, where it cannot, the page runs on one thread and says why.

import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ISOLATION_HEADERS } from './src/isolation/headers.js';

const TYPES = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.wasm': 'application/wasm',
  '.png': 'image/png',
  '.svg': 'image/svg+xml',
  '.txt': 'text/plain; charset=utf-8',
};

export function serve({ dir, port = 0, host = '127.0.0.1', isolate = false, log = null } = {}) {
  const base = path.resolve(dir);
  const server = http.createServer((req, res) => {
    const send = (status, body, headers = {}) => {
      res.writeHead(status, { 'Cache-Control': 'no-cache', 'X-Content-Type-Options': 'nosniff', ...headers });
      res.end(body);
      if (log) log(`${req.method} ${req.url} ${status}`);
    };
    if (req.method !== 'GET' && req.method !== 'HEAD') return send(405, 'method not allowed\n', { Allow: 'GET, HEAD' });
    let pathname;
    try {
      pathname = decodeURIComponent(new URL(req.url, 'http://localhost').pathname);
    } catch (error) {
      return send(400, 'bad request\n');
    }
    if (pathname.endsWith('/')) pathname += 'index.html';
    const file = path.resolve(base, `.${pathname}`);
    if (file !== base && !file.startsWith(base + path.sep)) return send(403, 'forbidden\n');
    fs.stat(file, (error, stat) => {
      if (error || !stat.isFile()) return send(404, 'not found\n', { 'Content-Type': 'text/plain; charset=utf-8' });
      const headers = {
        'Content-Type': TYPES[path.extname(file).toLowerCase()] || 'application/octet-stream',
        'Content-Length': String(stat.size),
      };
      if (isolate) Object.assign(headers, ISOLATION_HEADERS);
      if (req.method === 'HEAD') return send(200, undefined, headers);
      res.writeHead(200, { 'Cache-Control': 'no-cache', 'X-Content-Type-Options': 'nosniff', ...headers });
      fs.createReadStream(file).pipe(res);
      if (log) log(`${req.method} ${req.url} 200`);
    });
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      const address = server.address();
      resolve({
        server,
        port: address.port,
        url: `http://${host}:${address.port}/`,
        close: () =>
          new Promise((done) => {
            server.closeAllConnections?.();
            server.close(() => done());
          }),
      });
    });
  });
}

// Command line.
if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const args = process.argv.slice(2);
  const options = { dir: path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'dist'), port: 8000 };
  for (let i = 0; i < args.length; i += 1) {
    const arg = args[i];
    const value = () => {
      if (i + 1 >= args.length) {
        console.error(`serve: ${arg} needs a value`);
        process.exit(2);
      }
      i += 1;
      return args[i];
    };
    if (arg === '--port') {
      const v = value();
      options.port = Number(v);
      if (!/^\d+$/.test(v) || options.port < 1 || options.port > 65535) {
        console.error(`serve: --port must be a number from 1 to 65535 (got ${JSON.stringify(v)})`);
        process.exit(2);
      }
    } else if (arg === '--host') options.host = value();
    else if (arg === '--dir') options.dir = value();
    else if (arg === '--isolate') options.isolate = true;
    else {
      console.error(`serve: unknown argument ${JSON.stringify(arg)} (use --port N, --host H, --dir DIR, --isolate)`);
      process.exit(2);
    }
  }
  if (!fs.existsSync(path.join(options.dir, 'index.html'))) {
    console.error(`serve: ${options.dir}/index.html is missing: run scripts/build first`);
    process.exit(1);
  }
  serve(options).then(
    ({ url }) => {
      console.log(`kvlab page: ${url}`);
      console.log(`  single file, no server needed: ${path.resolve(options.dir, 'kvlab-standalone.html')}`);
      console.log('  Ctrl-C stops the server.');
    },
    (error) => {
      console.error(`serve: cannot listen on ${options.host}:${options.port}: ${error.message}`);
      process.exit(1);
    }
  );
}
