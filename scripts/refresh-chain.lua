-- wrk: refresh_token rotations over keep-alive connections, each answer's refresh token
-- being a later request's (a rotated token is spent: sending it twice would be a reuse).
-- Usage: wrk -t2 -c16 -s scripts/refresh-chain.lua URL -- TOKENS_FILE THREADS [CLIENT_ID]
--   TOKENS_FILE: live refresh tokens, one per line (token-http-bench writes them with
--   BENCH_CHAINS_FILE), at least as many as connections; THREADS: wrk's -t.
-- The client's cost per request is a string match, so the gateway gets the machine.
local threads = {}

function setup(thread)
  thread:set("index", #threads)
  table.insert(threads, thread)
end

function init(args)
  tokens, lost = {}, 0
  -- wrk asks the first thread's script for one request to check it, and sends it nowhere.
  checked = index ~= 0
  client = args[3] or "bench-app"
  local count, line = tonumber(args[2]), 0
  for token in io.lines(args[1]) do
    if line % count == index then table.insert(tokens, token) end
    line = line + 1
  end
end

local function form(token)
  return wrk.format("POST", nil, { ["Content-Type"] = "application/x-www-form-urlencoded" },
    "grant_type=refresh_token&client_id=" .. client .. "&refresh_token=" .. token)
end

function request()
  if not checked then
    checked = true
    return form(tokens[#tokens])  -- wrk's check: the token is not spent
  end
  local token = table.remove(tokens)
  if not token then
    lost = lost + 1
    token = "none"  -- a chain broke (an error answer): this request is refused and counted
  end
  return form(token)
end

function response(status, headers, body)
  local token = body:match('"refresh_token"%s*:%s*"([^"]+)"')
  if status == 200 and token then
    table.insert(tokens, token)
  end
end

function done(summary, latency, requests)
  local errors = summary.errors.status + summary.errors.connect + summary.errors.read
    + summary.errors.write + summary.errors.timeout
  io.write(string.format("refresh chains: %d requests, %d errors\n", summary.requests, errors))
end
