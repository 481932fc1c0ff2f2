-- Shared by init.lua and sync.lua, which start with it (LeaseScript puts it in front of them when it loads them).

-- The bulkhead's limit at key: an integer of at least 1, nil when the key does not exist, or nil and an error reply
-- naming the key when it was written by hand with a value the scripts cannot use.
local function read_limit(key)
    local value = redis.pcall('GET', key)
    if type(value) == 'table' and value.err then
        return nil, redis.error_reply('ERR the limit key ' .. key .. ' is a ' .. redis.call('TYPE', key).ok
            .. ', expected a string holding an integer of at least 1: delete it, or set it with changeLimit')
    end
    if not value then
        return nil
    end
    local number = tonumber(value)
    if not number or number < 1 or number ~= math.floor(number) then
        return nil, redis.error_reply('ERR the limit key ' .. key .. " holds '" .. value
            .. "', expected an integer of at least 1: set it with changeLimit, or delete it")
    end
    return number
end

-- Every key of the bulkhead expires a day after the last script call of any process, so a bulkhead nobody uses any
-- more leaves nothing behind (a lost meta key after a day without calls only means a settle period).
local function touch()
    for _, key in ipairs(KEYS) do
        redis.call('PEXPIRE', key, 86400000)
    end
end

