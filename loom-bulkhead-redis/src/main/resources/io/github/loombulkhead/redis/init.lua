-- Applies a configured limit that differs from the one last configured (a deployment changed it);
-- a limit changed at runtime survives processes that start with the same configuration. Creates the bulkhead's
-- meta hash, whose absence later tells sync.lua that Redis lost its state while processes were running.
-- KEYS: 1 limit, 2 configured limit, 3 meta; ARGV: 1 configured limit
if redis.call('GET', KEYS[2]) ~= ARGV[1] then
    redis.call('SET', KEYS[2], ARGV[1])
    redis.call('SET', KEYS[1], ARGV[1])
else
    redis.call('SET', KEYS[1], ARGV[1], 'NX')
end
redis.call('HSETNX', KEYS[3], 'inflight', 0)
return tonumber(redis.call('GET', KEYS[1]))
