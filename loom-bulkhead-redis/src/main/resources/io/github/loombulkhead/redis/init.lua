-- Applies a configured limit that differs from the one last configured (a deployment changed it);
-- a limit changed at runtime survives processes that start with the same configuration. Creates the bulkhead's
-- meta hash, whose absence later tells sync.lua that Redis lost its state while processes were running.
-- KEYS: 1 limit, 2 configured limit, 3 meta; ARGV: 1 configured limit
-- Keys written by hand with a value the scripts cannot use are errors naming the key.
local configured = redis.pcall('GET', KEYS[2])
if type(configured) == 'table' and configured.err then
    return redis.error_reply('ERR the key ' .. KEYS[2] .. ' is a ' .. redis.call('TYPE', KEYS[2]).ok
        .. ', expected a string holding the configured limit: delete it')
end
if configured ~= ARGV[1] then
    redis.call('SET', KEYS[2], ARGV[1])
    redis.call('SET', KEYS[1], ARGV[1])
else
    redis.call('SET', KEYS[1], ARGV[1], 'NX')
end
local number, failure = read_limit(KEYS[1])
if failure then
    return failure
end
local meta = redis.call('TYPE', KEYS[3]).ok
if meta ~= 'hash' and meta ~= 'none' then
    return redis.error_reply('ERR the key ' .. KEYS[3] .. ' is a ' .. meta .. ', expected a hash: delete it')
end
redis.call('HSETNX', KEYS[3], 'inflight', 0)
touch()
return number
