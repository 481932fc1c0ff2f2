-- Applies a configured limit that differs from the one last configured (a deployment changed it);
-- a limit changed at runtime survives processes that start with the same configuration.
-- KEYS: 1 limit, 2 configured limit; ARGV: 1 configured limit
if redis.call('GET', KEYS[2]) ~= ARGV[1] then
    redis.call('SET', KEYS[2], ARGV[1])
    redis.call('SET', KEYS[1], ARGV[1])
else
    redis.call('SET', KEYS[1], ARGV[1], 'NX')
end
return tonumber(redis.call('GET', KEYS[1]))
