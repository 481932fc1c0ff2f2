-- Brings one process's leases up to date and hands free permits to waiting processes, round robin.
-- KEYS: 1 limit, 2 held (hash process -> leases), 3 expiry (zset process -> expiry ms, Redis clock),
--       4 want (hash process -> permits wanted), 5 queue (zset process -> turn), 6 pending (hash process ->
--       leases handed over since its last sync), 7 meta (hash: settle, turn, now (of the last call); inflight, written
--       for inspection only),
--       8 configured limit
-- ARGV: 1 process, 2 leases it keeps, 3 more permits it wants, 4 lease duration ms, 5 limit if none is set,
--       6 channel, 7 settle period ms (how long a Redis that lost its state grants nothing new)
-- Returns: leases the process holds, leases held cluster-wide, limit, other processes waiting, processes alive,
--          fair share (the limit divided by the processes that hold or want permits, rounded down), the remainder
--          of that division (permits that go round the waiting processes, one at a time, in turn)
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local me, keep, want, lease = ARGV[1], tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4])

-- A limit written by hand that is no integer of at least 1 is an error naming the key, before anything changes.
local limit, failure = read_limit(KEYS[1])
if failure then
    return failure
end
if not limit then
    redis.call('SET', KEYS[1], ARGV[5])
    limit = tonumber(ARGV[5])
end
if redis.call('EXISTS', KEYS[7]) == 0 then
    -- The meta hash is created when a process attaches: without it, Redis lost its state (a restart, a failover)
    -- while processes may still run calls on their leases. Until every live process has renewed, only what processes
    -- say they keep counts, and nothing new is granted: the first to ask would get permits still in use elsewhere.
    -- The settle period is the caller's lease but at least twice the longest renewal period of any process (1 s),
    -- so a process with a shorter lease than the others does not cut it short.
    redis.call('HSET', KEYS[7], 'settle', now + tonumber(ARGV[7]))
else
    -- Leases expire by Redis's clock. Between two script calls it moves forward by less than a second while processes
    -- hold permits (each renews at least once a second); a step backwards, or forwards by more than twice that, is
    -- Redis's clock being set (or a failover to a replica whose clock differs), or every process losing Redis for a
    -- while. The leases keep what they had left, instead of being reaped at once (a step forwards) or living on (a
    -- step backwards); after a step forwards nothing new is granted until every process renewed, as after a restart.
    local last = tonumber(redis.call('HGET', KEYS[7], 'now') or '')
    local jump = last and (now - last) or 0
    if jump < 0 or (jump > 2000 and redis.call('HLEN', KEYS[2]) > 0) then
        local expiries = redis.call('ZRANGE', KEYS[3], 0, -1, 'WITHSCORES')
        for i = 1, #expiries, 2 do
            redis.call('ZADD', KEYS[3], tonumber(expiries[i + 1]) + jump, expiries[i])
        end
        if jump > 0 then
            redis.call('HSET', KEYS[7], 'settle', now + tonumber(ARGV[7]))
        end
    end
end
redis.call('HSET', KEYS[7], 'now', now)
local settling = now < tonumber(redis.call('HGET', KEYS[7], 'settle') or '0')

-- Whether processes waited before this sync: when none waits after it, those held to their fair share hear it.
local queued = redis.call('ZCARD', KEYS[5])

-- Processes that stopped renewing lose their leases.
for _, dead in ipairs(redis.call('ZRANGEBYSCORE', KEYS[3], '-inf', now)) do
    redis.call('HDEL', KEYS[2], dead)
    redis.call('HDEL', KEYS[4], dead)
    redis.call('HDEL', KEYS[6], dead)
    redis.call('ZREM', KEYS[5], dead)
    redis.call('ZREM', KEYS[3], dead)
end

-- The permits in use cluster-wide are the leases of the live processes, summed (O(processes), like the reaping):
-- never a count kept beside them, which a key lost alone (an eviction, a DEL) would leave wrong for good.
local inflight = 0
for _, count in ipairs(redis.call('HVALS', KEYS[2])) do
    inflight = inflight + tonumber(count)
end

-- The process keeps what it says it keeps, plus what was handed to it since it last looked: those count toward
-- what it wants, as it asked for them before it knew.
local old = tonumber(redis.call('HGET', KEYS[2], me) or '0')
local pending = redis.call('HGET', KEYS[6], me)
local held = keep
if pending then
    held = held + tonumber(pending)
    want = math.max(0, want - tonumber(pending))
    redis.call('HDEL', KEYS[6], me)
end
inflight = inflight + held - old
redis.call('ZADD', KEYS[3], now + lease, me)

-- Nobody waits and what the process wants is free: no queue to keep, no turn to take (the common case, kept short).
if (want == 0 or (inflight + want <= limit and not settling)) and redis.call('ZCARD', KEYS[5]) == 0 then
    held = held + want
    inflight = inflight + want
    if held > 0 then
        redis.call('HSET', KEYS[2], me, held)
    else
        redis.call('HDEL', KEYS[2], me)
    end
    redis.call('HSET', KEYS[7], 'inflight', inflight)
    if queued > 0 then
        redis.call('PUBLISH', ARGV[6], 'freed')
    end
    local holders = math.max(1, redis.call('HLEN', KEYS[2]))
    local share = math.floor(limit / holders)
    touch()
    return { held, inflight, limit, 0, redis.call('ZCARD', KEYS[3]), share, limit - share * holders }
end
redis.call('HSET', KEYS[2], me, held)

local newcomer = false
if want > 0 then
    redis.call('HSET', KEYS[4], me, want)
    local queuedSince = redis.call('ZSCORE', KEYS[5], me)
    if not queuedSince or held < old then
        -- A process that gave permits back while it wants more (down to its fair share, after its turn with the
        -- permit above it) waits behind the others: the permit goes to the process that waited longest.
        redis.call('ZADD', KEYS[5], redis.call('HINCRBY', KEYS[7], 'turn', 1), me)
        newcomer = not queuedSince
    end
else
    redis.call('HDEL', KEYS[4], me)
    redis.call('ZREM', KEYS[5], me)
end

-- Free permits go to waiting processes one at a time, in turn; a lone waiter takes them at once. A process that gives
-- permits back now takes none of them while another waits.
local gaveBack = held < old
local handed = {}
while inflight < limit and not settling do
    local first = redis.call('ZRANGE', KEYS[5], 0, 1)
    local head = first[1]
    if head == me and gaveBack and first[2] then
        head = first[2]
    end
    if not head then
        break
    end
    local wanted = tonumber(redis.call('HGET', KEYS[4], head))
    local count = 1
    if redis.call('ZCARD', KEYS[5]) == 1 then
        count = math.min(wanted, limit - inflight)
    end
    redis.call('HINCRBY', KEYS[2], head, count)
    inflight = inflight + count
    if head == me then
        held = held + count
    else
        redis.call('HINCRBY', KEYS[6], head, count)
        handed[head] = true
    end
    redis.call('ZREM', KEYS[5], head)
    if wanted > count then
        redis.call('HSET', KEYS[4], head, wanted - count)
        redis.call('ZADD', KEYS[5], redis.call('HINCRBY', KEYS[7], 'turn', 1), head)
    else
        redis.call('HDEL', KEYS[4], head)
    end
end
redis.call('HSET', KEYS[7], 'inflight', inflight)
if held == 0 then
    redis.call('HDEL', KEYS[2], me)
end
for process in pairs(handed) do
    redis.call('PUBLISH', ARGV[6], 'granted:' .. process)
end
if newcomer and inflight >= limit then
    redis.call('PUBLISH', ARGV[6], 'wanted:' .. me)
end

local waiting = redis.call('ZCARD', KEYS[5])
if queued > 0 and waiting == 0 then
    redis.call('PUBLISH', ARGV[6], 'freed')
end
local others = waiting
if redis.call('ZSCORE', KEYS[5], me) then
    others = others - 1
end
local demanding = redis.call('HLEN', KEYS[2])
for _, process in ipairs(redis.call('ZRANGE', KEYS[5], 0, -1)) do
    if redis.call('HEXISTS', KEYS[2], process) == 0 then
        demanding = demanding + 1
    end
end
if demanding == 0 then
    demanding = 1
end
local share = math.floor(limit / demanding)
touch()
return { held, inflight, limit, others, redis.call('ZCARD', KEYS[3]), share, limit - share * demanding }
