-- SPDX-License-Identifier: MIT
-- bench/emulate.sh's interpreter workload: Lua's bytecode dispatch loop on
-- recursion, data-dependent branches, tables, strings and a sort.
-- Deterministic (its own generator). Usage: lua5.4 branchy.lua [SCALE]
local scale = tonumber(arg and arg[1]) or 3

local function fib(n) if n < 2 then return n end return fib(n - 1) + fib(n - 2) end

local seed = 12345
local function rand(n) -- LCG: the same numbers on every run
	seed = (seed * 1103515245 + 12345) % 2147483648
	return (seed >> 16) % n -- the high bits: the low ones have short periods
end

local function collatz_steps(limit)
	local total = 0
	for i = 1, limit do
		local n, steps = i, 0
		while n ~= 1 do
			if n % 2 == 0 then n = n // 2 else n = 3 * n + 1 end
			steps = steps + 1
		end
		total = total + steps
	end
	return total
end

local function sieve(n)
	local composite, count = {}, 0
	for i = 2, n do
		if not composite[i] then
			count = count + 1
			for j = i * i, n, i do composite[j] = true end
		end
	end
	return count
end

local function words(n)
	local parts, syll = {}, { "ka", "lo", "mi", "ne", "su", "ta", "ri", "vo" }
	for i = 1, n do
		local w = {}
		for k = 1, 1 + rand(4) do w[k] = syll[1 + rand(#syll)] end
		parts[i] = table.concat(w)
	end
	table.sort(parts)
	local counts = {}
	for _, w in ipairs(parts) do counts[w] = (counts[w] or 0) + 1 end
	local distinct = 0
	for _ in pairs(counts) do distinct = distinct + 1 end
	return distinct
end

local r1, r2, r3, r4 = 0, 0, 0, 0
for _ = 1, scale do
	r1 = r1 + fib(27)
	r2 = r2 + collatz_steps(60000)
	r3 = r3 + sieve(400000)
	r4 = r4 + words(60000)
end
print(r1, r2, r3, r4)
