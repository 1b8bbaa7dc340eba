-- Neovim configuration for the documentation screenshots (screenshots.sh):
-- the plugin set up as a user would, with its status in the statusline.
vim.o.termguicolors = true
vim.o.number = true
vim.o.signcolumn = 'yes'
vim.o.laststatus = 2
vim.o.showmode = false
vim.o.winborder = 'rounded'
vim.o.statusline = " %f %m%=%{v:lua.require'eqlens'.status()}  %l:%c "
vim.diagnostic.config({ virtual_text = false, underline = true, signs = true })

require('eqlens').setup({ cmd = { vim.env.EQLENS_BIN, 'serve' } })
