-- Changes the cluster-wide limit at runtime and wakes every process to apply it.
-- KEYS: 1 limit; ARGV: 1 new limit, 2 channel
redis.call('SET', KEYS[1], ARGV[1])
redis.call('PUBLISH', ARGV[2], 'limit')
return tonumber(ARGV[1])
